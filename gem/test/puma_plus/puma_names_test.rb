# frozen_string_literal: true

# Every directive and flag of puma 5.6 through 8 (data/puma_names.rb) is supported, an alias of a supported
# one, or reported with file:line and a reason and then ignored: never an error that stops the boot. Each
# is tried the way the shepherd resolves it at boot (Configuration.resolve, then the rackup check: what
# --dry-run runs too, less its JDK probe), and a reported one must be in what the shepherd logs at boot.
# Names that are not puma's stay errors.

require "test_helper"
require "stringio"
require "puma_plus/dry_run"
require_relative "data/puma_names"

class PumaPlus::PumaNamesTest < PumaPlus::TestCase
  GEM_DIR = File.expand_path("../..", __dir__)
  EXE = File.join(GEM_DIR, "exe", "puma-plus")

  def setup
    @dir = Dir.mktmpdir("puma-plus-names")
    FileUtils.mkdir_p(File.join(@dir, "config"))
    FileUtils.mkdir_p(File.join(@dir, "lib"))
    File.write(File.join(@dir, "config.ru"), "run ->(env) { [200, {}, ['ok']] }\n")
    %w[c.pem k.pem other.rb].each { |name| File.write(File.join(@dir, name), "") }
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # [0, the lines the shepherd would log for reported names, ""], or [1, "", the error] as --dry-run.
  def dry_run(argv)
    config = PumaPlus::Configuration.resolve(argv, env: {}, cwd: @dir).check_rackup!
    [0, config.unsupported.map { |u| "unsupported: #{u}\n" }.join, ""]
  rescue PumaPlus::ConfigError => e
    [1, "", "puma-plus: #{e.message}"]
  end

  def test_every_puma_directive_is_supported_aliased_or_reported_with_file_and_line
    path = File.join(@dir, "config", "puma-plus.rb")
    PumaNames::DIRECTIVES.each do |name, since, line|
      File.write(path, "# puma #{since}\n#{line}\n")
      status, out, err = dry_run(["config.ru"])
      assert_equal 0, status, "puma #{since} `#{line}` stopped the boot: #{err}"
      reported = PumaPlus::DSL::UNSUPPORTED.key?(name.to_sym) ||
                 (name == "activate_control_app" && !line.include?("tcp://"))
      if reported
        assert_includes out, "unsupported: #{path}:2: #{name} is a puma directive with no equivalent in puma-plus (",
                        "puma #{since} `#{line}` is ignored but not reported"
      else
        assert PumaPlus::DSL.public_method_defined?(name), "puma #{since} #{name}: neither supported nor reported"
        refute_includes out, "unsupported:", "puma #{since} `#{line}` is supported, yet reported"
      end
    end
  end

  def test_every_puma_flag_is_supported_or_reported
    PumaNames::FLAGS.each do |argv, since|
      status, out, err = dry_run(argv + ["config.ru"])
      assert_equal 0, status, "puma #{since} flag #{argv.join(' ')} stopped the boot: #{err}"
      flag = argv.first.start_with?("--") ? argv.first[/\A--[a-z-]+/] : nil
      spec = PumaPlus::CommandLine::UNSUPPORTED.keys.find { |s| s.include?(argv.first) || s.any? { |f| f.is_a?(String) && f.start_with?("#{flag}=", "#{flag} ") || f == flag } }
      if spec
        assert_match(/^unsupported: flag --[a-z-]+: .+; ignored$/, out, "puma #{since} flag #{argv.join(' ')} is not reported")
      else
        refute_includes out, "unsupported:", "puma #{since} flag #{argv.join(' ')} is supported, yet reported"
      end
    end
  end

  def test_the_executables_own_flags_answer_as_puma_does
    PumaNames::EXECUTABLE_FLAGS.each do |argv, since, output|
      out = IO.popen([RbConfig.ruby, EXE, *argv], &:read)
      assert_match output, out, "puma #{since} flag #{argv.join(' ')}"
    end
  end

  def test_dir_changes_to_the_directory_before_anything_resolves
    out = IO.popen([RbConfig.ruby, EXE, "--dir", @dir, "--dry-run"], chdir: "/", err: %i[child out], &:read)
    assert_match(/^  rackup +"#{Regexp.escape(File.realpath(@dir))}\/config\.ru" +default$/, out)
  end

  def test_puma_meanings_of_v_dev_null_workers_auto_and_no_token
    assert_equal true, PumaPlus::Configuration.resolve(%w[-v], env: {}, cwd: @dir).log_requests
    File.write(File.join(@dir, "config", "puma-plus.rb"), "workers 9\n")
    assert_equal 0, PumaPlus::Configuration.resolve(%w[-C /dev/null], env: {}, cwd: @dir).workers
    assert_equal [], PumaPlus::Configuration.resolve(%w[--no-config], env: {}, cwd: @dir).config_files
    File.write(File.join(@dir, "config", "puma-plus.rb"), "workers :auto\nactivate_control_app 'tcp://127.0.0.1:0', no_token: true\n")
    config = PumaPlus::Configuration.resolve([], env: {}, cwd: @dir)
    assert_equal Etc.nprocessors, config.workers
    assert_equal ["tcp://127.0.0.1:0", false], [config.control_url, config.control_token], "false: no token at all"
    assert_equal Etc.nprocessors, PumaPlus::Configuration.resolve([], env: { "WEB_CONCURRENCY" => "auto" }, cwd: @dir).workers
  end

  def test_puma_8_single_and_cluster_blocks_run_after_every_file_by_the_worker_count
    File.write(File.join(@dir, "config", "puma.rb"), "threads 2, 2\nsingle { threads 1, 1 }\ncluster do\n  preload_app!\n  " \
                                                    "fork_worker\n  nakayoshi_fork\nend\n")
    single = PumaPlus::Configuration.resolve([], env: {}, cwd: @dir)
    assert_equal [1, false, false, []], [single.threads, single.preload_app, single.fork_worker, single.unsupported.map(&:to_s)]
    cluster = PumaPlus::Configuration.resolve(%w[-w 2], env: {}, cwd: @dir)
    assert_equal [2, true, 1000], [cluster.threads, cluster.preload_app, cluster.fork_worker]
    assert_equal ["#{@dir}/config/puma.rb:6: nakayoshi_fork"], cluster.unsupported.map { |u| "#{u.file}:#{u.line}: #{u.directive}" }
  end

  def test_names_that_are_not_pumas_stay_errors
    File.write(File.join(@dir, "config", "puma-plus.rb"), "workers 1\nbefore_worker_boots { }\n")
    status, _out, err = dry_run(["config.ru"])
    assert_equal 1, status
    assert_includes err, "config/puma-plus.rb:2: unknown directive \"before_worker_boots\""
    status, _out, err = dry_run(%w[--fork-workers config.ru])
    assert_equal 1, status
    assert_includes err, "--fork-workers"
  end
end
