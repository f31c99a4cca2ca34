# frozen_string_literal: true

# Log: one line per write, "puma-plus: " text by default, one JSON object per line with log_format json.

require "test_helper"
require "json"
require "stringio"
require "puma_plus/log"

class PumaPlus::LogTest < PumaPlus::TestCase
  def teardown
    PumaPlus::Log.json = nil
    PumaPlus::Log.source = nil
  end

  def test_text_lines_carry_the_prefix
    io = StringIO.new
    PumaPlus::Log.line("worker 0 booted", io)
    assert_equal "puma-plus: worker 0 booted\n", io.string
  end

  def test_json_lines_name_time_pid_source_and_message
    io = StringIO.new
    PumaPlus::Log.json = true
    PumaPlus::Log.source = "worker 1"
    PumaPlus::Log.line("link broke", io)
    record = JSON.parse(io.string)
    assert_equal [Process.pid, "worker 1", "link broke"], record.values_at("pid", "source", "message")
    assert_match(/\A\d{4}-\d\d-\d\dT/, record["time"])
    assert_equal 1, io.string.count("\n")
  end

  def test_ruby_warnings_become_json_lines_under_json
    PumaPlus::Log.json = true
    PumaPlus::Log.source = "worker 0"
    _, err = capture_io { warn "deprecated thing" }
    assert_equal "deprecated thing", JSON.parse(err)["message"]
    assert_equal 1, err.count("\n")
  end
end
