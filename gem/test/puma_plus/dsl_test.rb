# frozen_string_literal: true

# The config file language: what each directive records, and errors that name file:line and directive.

require "test_helper"
require "tmpdir"
require "puma_plus/dsl"

class PumaPlus::DSLTest < PumaPlus::TestCase
  def setup
    @dir = Dir.mktmpdir("puma-plus-dsl")
    @path = File.join(@dir, "puma-plus.rb")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def evaluate(source)
    File.write(@path, source)
    PumaPlus::DSL.evaluate(@path)
  end

  def error_for(source)
    assert_raises(PumaPlus::ConfigError) { evaluate(source) }.message
  end

  def test_directives_record_their_settings
    dsl = evaluate(<<~RUBY)
      bind "tcp://127.0.0.1:3000"
      port ENV.fetch("NO_SUCH_PORT_VAR", "3001"), "::1"
      workers "2"
      threads 1, 4
      environment :production
      rackup "app.ru"
      preload_app!
      activate_control_app "tcp://127.0.0.1:9293", auth_token: "s3cret"
    RUBY
    assert_equal({ binds: ["tcp://127.0.0.1:3000", "tcp://[::1]:3001"], workers: 2, min_threads: 1, threads: 4,
                   environment: "production", rackup: "app.ru", preload_app: true,
                   control_url: "tcp://127.0.0.1:9293", control_token: "s3cret" }, dsl.settings)
  end

  def test_timeout_directives_record_seconds
    dsl = evaluate("write_timeout 30\npersistent_timeout '75'\n")
    assert_equal({ write_timeout: 30, persistent_timeout: 75 }, dsl.settings)
  end

  def test_fractional_timeouts_round_up_to_whole_seconds_never_to_zero
    dsl = evaluate("write_timeout 0.5\npersistent_timeout 2.5\n")
    assert_equal({ write_timeout: 1, persistent_timeout: 3 }, dsl.settings)
  end

  def test_write_timeout_must_be_a_positive_number_of_seconds
    assert_equal "#{@path}:1: write_timeout: expected a positive number of seconds, got 0", error_for("write_timeout 0\n")
  end

  def test_log_requests_alone_means_true_as_in_puma
    assert_equal({ log_requests: true }, evaluate("log_requests\n").settings)
    assert_equal({ log_requests: false }, evaluate("log_requests false\n").settings)
  end

  def test_server_timing_alone_means_true
    assert_equal({ server_timing: true }, evaluate("server_timing\n").settings)
    assert_equal({ server_timing: false }, evaluate("server_timing false\n").settings)
  end

  def test_boolean_directives_refuse_anything_but_true_or_false
    assert_equal "#{@path}:1: log_requests: expected true or false, got \"no\"", error_for("log_requests 'no'\n")
    assert_equal "#{@path}:2: server_timing: expected true or false, got 1", error_for("\nserver_timing 1\n")
    assert_equal "#{@path}:1: preload_app!: expected true or false, got nil", error_for("preload_app! nil\n")
  end

  def test_unknown_directive_names_file_line_and_directive
    assert_equal "#{@path}:3: unknown directive \"wokers\"", error_for("workers 1\n\nwokers 2\n")
  end

  def test_puma_directive_without_equivalent_is_reported_with_file_and_line_not_an_error
    dsl = evaluate("workers 2\nnakayoshi_fork\n\nmax_fast_inline 10\n")
    assert_equal 2, dsl.settings[:workers]
    assert_equal [["nakayoshi_fork", @path, 2], ["max_fast_inline", @path, 4]],
                 dsl.unsupported.map { |u| [u.directive, u.file, u.line] }
    assert_equal "#{@path}:2: nakayoshi_fork is a puma directive with no equivalent in puma-plus " \
                 "(no GC compaction runs before a fork (with fork_worker, a before_refork hook can run one in the mold)); ignored",
                 dsl.unsupported.first.to_s
  end

  def test_fork_worker_takes_pumas_forms_and_its_refork_hooks_are_kept
    assert_equal 1000, evaluate("fork_worker\n").settings[:fork_worker]
    assert_equal 0, evaluate("fork_worker 0\n").settings[:fork_worker]
    dsl = evaluate("fork_worker 250\non_refork { 1 }\nbefore_refork { 2 }\nafter_refork { 3 }\n")
    assert_equal [250, []], [dsl.settings[:fork_worker], dsl.unsupported]
    assert_equal [1, 2], dsl.hooks[:before_refork].map(&:call), "on_refork is puma 6's name of before_refork"
    assert_equal [3], dsl.hooks[:after_refork].map(&:call)
    assert_equal "#{@path}:1: fork_worker: expected an integer >= 0, got -1", error_for("fork_worker -1\n")
  end

  def test_a_plugin_that_is_not_installed_is_reported_and_one_that_fails_to_load_is_an_error
    dsl = evaluate("workers 1\nplugin :not_installed_here\n")
    assert_equal [], dsl.plugin_names
    assert_equal "#{@path}:2: plugin: not_installed_here: no puma/plugin/not_installed_here.rb on the load path " \
                 "(is the gem that ships it installed?); ignored", dsl.unsupported.first.to_s
    lib = File.join(@dir, "lib", "puma", "plugin")
    FileUtils.mkdir_p(lib)
    File.write(File.join(lib, "broken_here.rb"), "require 'a_gem_that_is_not_there'\n")
    $LOAD_PATH.unshift(File.join(@dir, "lib"))
    assert_match(/\A#{Regexp.escape(@path)}:1: plugin broken_here: cannot load such file -- a_gem_that_is_not_there/,
                 error_for("plugin :broken_here\n"))
  ensure
    $LOAD_PATH.delete(File.join(@dir, "lib"))
  end

  def test_a_name_that_is_no_puma_directive_is_an_error_with_file_and_line
    assert_equal "#{@path}:1: unknown directive \"plugins\"", error_for("plugins :tmp_restart\n")
  end

  def test_each_setting_remembers_the_file_line_that_set_it
    dsl = evaluate("workers 2\n\nthreads 1, 3\nstdout_redirect 'o', 'e', true\n")
    assert_equal({ workers: "#{@path}:1", min_threads: "#{@path}:3", threads: "#{@path}:3",
                   stdout_path: "#{@path}:4", stderr_path: "#{@path}:4", redirect_append: "#{@path}:4" },
                 dsl.sources)
  end

  def test_puma_hooks_and_lowlevel_error_handler_are_recorded
    dsl = evaluate(<<~RUBY)
      on_worker_shutdown { |i| i }
      on_worker_fork { |i| i }
      after_worker_fork { |i| i }
      lowlevel_error_handler { |e, env| [500, {}, ["x"]] }
    RUBY
    %i[on_worker_shutdown on_worker_fork after_worker_fork lowlevel_error_handler].each do |name|
      assert_equal 1, dsl.hooks[name].size, name
    end
    assert_match(/lowlevel_error_handler: expected a block/, error_for("lowlevel_error_handler\n"))
  end

  def test_log_format_is_text_or_json
    assert_equal "json", evaluate("log_format :json\n").settings[:log_format]
    assert_equal "#{@path}:1: log_format: expected one of text, json, got \"xml\"", error_for("log_format 'xml'\n")
  end

  def test_worker_scheduling_is_batch_or_normal
    assert_equal "normal", evaluate("worker_scheduling :normal\n").settings[:worker_scheduling]
    assert_equal "#{@path}:1: worker_scheduling: expected one of batch, normal, got \"fifo\"",
                 error_for("worker_scheduling 'fifo'\n")
  end

  def test_bad_value_names_file_line_directive_and_value
    assert_equal "#{@path}:2: workers: expected an integer >= 0, got \"two\"", error_for("\nworkers 'two'\n")
    assert_equal "#{@path}:1: threads: min 5 is greater than max 2", error_for("threads 5, 2\n")
    assert_equal "#{@path}:1: threads: expected an integer >= 1, got 0", error_for("threads 0, 0\n")
    assert_equal "#{@path}:1: bind: expected tcp://HOST:PORT, got \"http://h:1\"", error_for("bind 'http://h:1'\n")
    assert_equal "#{@path}:1: bind: expected unix://PATH (a socket file), got \"unix://@name\"", error_for("bind 'unix://@name'\n")
    assert_equal "#{@path}:1: bind: bad mode \"9\" in \"unix:///tmp/s?mode=9\"", error_for("bind 'unix:///tmp/s?mode=9'\n")
    assert_equal "#{@path}:1: port: expected a port 0..65535, got 70000", error_for("port 70000\n")
    assert_equal "#{@path}:1: shutdown_timeout: expected a positive number of seconds, got -1",
                 error_for("shutdown_timeout(-1)\n")
  end

  def test_webtransport_limits_are_directives_of_their_own_taking_positive_integers
    dsl = evaluate("webtransport_sessions_per_connection 2\nwebtransport_max_sessions '3'\n" \
                   "webtransport_streams_per_session 4\nwebtransport_max_message 1_000\nwebtransport_outbound_limit 5000\n")
    assert_equal({ webtransport_sessions_per_connection: 2, webtransport_max_sessions: 3,
                   webtransport_streams_per_session: 4, webtransport_max_message: 1000,
                   webtransport_outbound_limit: 5000 }, dsl.settings)
    assert_equal "#{@path}:2: webtransport_max_message: expected an integer >= 1, got 0",
                 error_for("workers 1\nwebtransport_max_message 0\n")
    assert_equal "#{@path}:1: webtransport_sessions_per_connection: expected an integer >= 1, got \"many\"",
                 error_for("webtransport_sessions_per_connection 'many'\n")
    %w[webtransport_max_sessions webtransport_streams_per_session webtransport_outbound_limit].each do |name|
      assert_equal "#{@path}:1: #{name}: expected an integer >= 1, got -1", error_for("#{name}(-1)\n")
    end
  end

  def test_wrong_number_of_arguments_names_the_directive
    assert_match(/\A#{Regexp.escape(@path)}:1: workers: wrong number of arguments/, error_for("workers 1, 2\n"))
  end

  def test_hook_without_a_block_is_an_error
    assert_equal "#{@path}:1: before_fork: expected a block", error_for("before_fork\n")
  end

  def test_exception_raised_by_the_file_names_its_line
    assert_equal "#{@path}:2: RuntimeError: nope", error_for("workers 1\nraise 'nope'\n")
  end

  def test_syntax_error_names_the_file
    assert_match(/#{Regexp.escape(@path)}:1/, error_for("workers(\n"))
  end
end
