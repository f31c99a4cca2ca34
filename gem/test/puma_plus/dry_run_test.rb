# frozen_string_literal: true

# `puma-plus --dry-run`: every resolved setting with its source, the reported puma directives, exit 0; a
# problem gives exit 1 and names it.

require "test_helper"
require "tmpdir"
require "stringio"
require "puma_plus/dry_run"

class PumaPlus::DryRunTest < PumaPlus::TestCase
  GEM_DIR = File.expand_path("../..", __dir__)

  def setup
    @dir = Dir.mktmpdir("puma-plus-dry-run")
    FileUtils.mkdir_p(File.join(@dir, "config"))
    File.write(File.join(@dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def dry_run(argv, env: {}, bundled_jdk: PumaPlus::Launcher::BUNDLED_JDK)
    out = StringIO.new
    err = StringIO.new
    status = PumaPlus::DryRun.run(argv, gem_dir: GEM_DIR, env: env, cwd: @dir, out: out, err: err,
                                  bundled_jdk: bundled_jdk)
    [status, out.string, err.string]
  end

  def test_prints_every_value_with_default_env_file_line_or_flag_and_exits_0
    File.write(File.join(@dir, "config/puma-plus.rb"), "threads 1, 2\nnakayoshi_fork\nfork_worker 500\n")
    status, out, err = dry_run(%w[-e production], env: { "WEB_CONCURRENCY" => "3" })
    assert_equal 0, status, err
    assert_match(/^  workers +3 +env WEB_CONCURRENCY$/, out)
    assert_match(%r{^  threads +2 +#{@dir}/config/puma-plus\.rb:1$}, out)
    assert_match(/^  environment +"production" +flag --environment$/, out)
    assert_match(/^  persistent_timeout +20 +default$/, out)
    assert_includes out, "unsupported: #{@dir}/config/puma-plus.rb:2: nakayoshi_fork is a puma directive"
    assert_match(%r{^  fork_worker +500 +#{@dir}/config/puma-plus\.rb:3$}, out)
    PumaPlus::Configuration::DEFAULTS.each_key { |key| assert_match(/^  #{key} /, out) }
  end

  def test_reports_fibers_beside_threads_with_where_each_came_from
    File.write(File.join(@dir, "config/puma-plus.rb"), "threads 1, 2\n")
    status, out, err = dry_run(%w[--fibers 40])
    assert_equal 0, status, err
    assert_match(%r{^  threads +2 +#{@dir}/config/puma-plus\.rb:1$}, out)
    assert_match(/^  fibers +40 +flag --fibers$/, out)
    assert_match(/^  fibers +nil +default$/, dry_run([]).then { |_, text, _| text })
  end

  def test_an_unknown_directive_exits_1_naming_file_and_line
    File.write(File.join(@dir, "config/puma-plus.rb"), "workers 1\nwokers 2\n")
    status, _out, err = dry_run([])
    assert_equal 1, status
    assert_equal "puma-plus: #{@dir}/config/puma-plus.rb:2: unknown directive \"wokers\"\n", err
  end

  def test_a_missing_jdk_exits_1_naming_it
    status, _out, err = dry_run([], env: { "JAVA_HOME" => "/nonexistent", "PATH" => "/nonexistent" },
                                    bundled_jdk: "/nonexistent/bin/java")
    assert_equal 1, status
    assert_match(%r{\Apuma-plus: no java found \(looked at /nonexistent/bin/java, .*install a JDK 21 or newer}, err)
  end
end
