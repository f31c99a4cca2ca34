# frozen_string_literal: true

# rack.input built from BODY payloads: binary, rewindable, in memory up to the threshold, spooled beyond.

require "test_helper"
require "puma_plus/request_body"

class PumaPlus::RequestBodyTest < PumaPlus::TestCase
  def test_empty_input_is_binary_and_reads_empty
    input = PumaPlus::RequestBody.empty
    assert_equal "", input.read
    assert_equal Encoding::BINARY, input.read.encoding
  end

  def test_small_body_stays_in_memory_and_is_rewindable
    body = PumaPlus::RequestBody.new
    body << "abc".b << "def".b
    input = body.input
    assert_kind_of StringIO, input
    assert_equal "abcdef", input.read
    input.rewind
    assert_equal "abc", input.read(3)
  end

  def test_body_over_the_threshold_moves_to_a_file_that_never_had_a_name
    body = PumaPlus::RequestBody.new(spool_threshold: 4)
    body << "abc".b << "defg".b << "\xff".b
    input = body.input
    assert_kind_of File, input
    assert_equal 0, input.stat.nlink, "the spool file should have no name in any directory"
    assert_equal "abcdefg\xff".b, input.read
    input.rewind
    assert_equal "ab", input.read(2)
    assert_equal 8, body.size
  ensure
    input&.close
  end

  def test_a_body_over_the_threshold_spools_inside_a_ractor
    read = Ractor.new do
      body = PumaPlus::RequestBody.new(spool_threshold: 4)
      body << "abcdefgh".b
      body.input.read
    end.take
    assert_equal "abcdefgh", read
  end

  def test_a_frozen_first_payload_is_not_mutated
    first = "".b.freeze
    body = PumaPlus::RequestBody.new
    body << first << "x".b
    assert_equal "x", body.input.read
    assert_equal "", first
  end
end
