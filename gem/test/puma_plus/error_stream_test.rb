# frozen_string_literal: true

# rack.errors as the worker gives it: whole lines to the server's log, tagged with the request id.

require "test_helper"
require "puma_plus/error_stream"

class PumaPlus::ErrorStreamTest < PumaPlus::TestCase
  def setup
    @log = StringIO.new
    @errors = PumaPlus::ErrorStream.new(@log)
    @errors.request_id = "42"
  end

  def test_puts_write_and_print_become_lines_tagged_with_the_request_id
    @errors.puts "first", "second"
    @errors.write "third\nfou"
    @errors.print "rth\n"
    assert_equal ["puma-plus: request 42: first", "puma-plus: request 42: second",
                  "puma-plus: request 42: third", "puma-plus: request 42: fourth"], @log.string.lines(chomp: true)
  end

  def test_an_unfinished_line_waits_for_flush
    @errors.write "partial"
    assert_equal "", @log.string
    @errors.flush
    assert_equal "puma-plus: request 42: partial\n", @log.string
  end

  def test_logger_lines_carry_the_request_id_and_close_is_harmless
    @errors.logger.warn("careful")
    @errors.close
    assert_match(/\Apuma-plus: request 42: W, .* WARN -- : careful\n\z/, @log.string)
  end

  def test_between_requests_lines_say_so
    @errors.request_id = nil
    @errors.puts "idle"
    assert_equal "puma-plus: request -: idle\n", @log.string
  end
end
