# frozen_string_literal: true

# REQUEST (version 2): the three host timing points before the env pair list, exact bytes, round trips,
# and refusal of a payload too short for its timing fields.

require "test_helper"
require "socket"

class PumaPlus::Wire::RequestTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  Request = Wire::Request

  def test_payload_is_t2_t2b_t3_as_u64_big_endian_then_the_pair_list
    request = Request.new(headers_parsed_ns: 1, runnable_ns: 0x0102030405060708, dispatched_ns: 2**64 - 1,
                          pairs: [["A", "b"]])
    expected = [0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8].pack("C*") + ("\xff".b * 8) +
               "\x00\x01A\x00\x00\x00\x01b".b
    assert_equal expected, request.payload
    assert_equal Encoding::BINARY, request.payload.encoding
  end

  def test_request_round_trips_over_a_socket_pair_with_its_timing_fields
    a, b = UNIXSocket.pair
    request = Request.new(headers_parsed_ns: 1_000_000_000, runnable_ns: 1_000_250_000, dispatched_ns: 1_003_000_000,
                          pairs: [["REQUEST_METHOD", "GET"], ["HTTP_X_RAW", "\xff\x00".b], ["PATH_INFO", "/"]])
    a.write(request.encode(Wire::Frame::END_STREAM))
    frame = Wire::Frame.read(b)
    assert frame.end_stream?
    decoded = Wire.decode(frame)
    assert_equal request.to_h.merge(pairs: request.pairs.map { |n, v| [n.b, v.b] }), decoded.to_h
  ensure
    a&.close
    b&.close
  end

  def test_request_with_no_pairs_is_exactly_its_24_timing_bytes
    payload = Request.new(headers_parsed_ns: 5, runnable_ns: 6, dispatched_ns: 7, pairs: []).payload
    assert_equal 24, payload.bytesize
    assert_equal({ headers_parsed_ns: 5, runnable_ns: 6, dispatched_ns: 7, pairs: [] }, Request.decode(payload).to_h)
  end

  def test_payload_shorter_than_24_bytes_is_a_protocol_error
    whole = Request.new(headers_parsed_ns: 5, runnable_ns: 6, dispatched_ns: 7, pairs: []).payload
    (0...24).each do |size|
      frame = Wire::Frame.new(Wire::FrameType::REQUEST, 0, whole.byteslice(0, size))
      error = assert_raises(Wire::ProtocolError, "#{size} bytes") { Wire.decode(frame) }
      assert_equal "REQUEST: payload of #{size} bytes, at least 24 required", error.message
    end
  end

  def test_truncated_pair_list_after_the_timing_fields_is_a_protocol_error
    whole = Request.new(headers_parsed_ns: 5, runnable_ns: 6, dispatched_ns: 7, pairs: [["name", "value"]]).payload
    (25...whole.bytesize).each do |size|
      assert_raises(Wire::ProtocolError, "#{size} bytes") { Request.decode(whole.byteslice(0, size)) }
    end
  end
end
