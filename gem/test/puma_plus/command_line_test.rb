# frozen_string_literal: true

# The flags of docs/CONFIG.md: what each one sets, and refusals that name the flag.

require "test_helper"
require "puma_plus/command_line"

class PumaPlus::CommandLineTest < PumaPlus::TestCase
  def parse(*argv)
    PumaPlus::CommandLine.new(argv)
  end

  def test_every_documented_flag_sets_its_setting
    cli = parse("-b", "tcp://127.0.0.1:1", "-p", "2", "-w", "3", "-t", "1:6", "-C", "c.rb", "-e", "production",
                "--preload", "--control-url", "tcp://127.0.0.1:0", "--control-token", "tok", "app.ru")
    assert_equal({ binds: ["tcp://127.0.0.1:1", "tcp://0.0.0.0:2"], workers: 3, min_threads: 1, threads: 6,
                   environment: "production", preload_app: true, control_url: "tcp://127.0.0.1:0",
                   control_token: "tok" }, cli.settings)
    assert_equal ["c.rb", "app.ru"], [cli.config_paths.first, cli.rackup]
  end

  def test_long_forms_work
    cli = parse("--bind", "tcp://h:1", "--port", "2", "--workers", "3", "--threads", "4", "--config", "c.rb",
                "--environment", "e")
    assert_equal [["tcp://h:1", "tcp://0.0.0.0:2"], 3, 4, "c.rb", "e"],
                 [cli.settings[:binds], cli.settings[:workers], cli.settings[:threads], cli.config_paths.first,
                  cli.settings[:environment]]
  end

  def test_log_requests_flag_turns_request_logging_on
    assert_equal({ log_requests: true }, parse("--log-requests").settings)
  end

  def test_no_flags_set_nothing
    assert_equal({}, parse.settings)
    assert_nil parse.rackup
  end

  def test_bad_values_and_unknown_flags_are_refused_with_the_flag_named
    assert_equal '--workers: expected an integer >= 0, got "x"', assert_raises(PumaPlus::ConfigError) { parse("-w", "x") }.message
    assert_equal '--threads: expected an integer >= 1, got "0"', assert_raises(PumaPlus::ConfigError) { parse("-t", "0:0") }.message
    assert_equal "invalid option: --wat", assert_raises(PumaPlus::ConfigError) { parse("--wat") }.message
    assert_match(/more than one rackup file/, assert_raises(PumaPlus::ConfigError) { parse("a.ru", "b.ru") }.message)
  end
end
