# frozen_string_literal: true

# RESPONSE_HEAD (version 2): status, reserved, the worker's T4, T5 and body-read ns, (version 6, with flag
# GVL_WAIT) the GVL wait, then the header pair list; exact bytes, round trips, and refusal of a payload
# shorter than its 28 (36) fixed bytes.

require "test_helper"
require "socket"

class PumaPlus::Wire::ResponseHeadTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  ResponseHead = Wire::ResponseHead

  def test_payload_is_status_reserved_t4_t5_body_read_then_the_pair_list
    payload = ResponseHead.payload(204, 0x0102030405060708, 2**64 - 1, 3, [["k", "v"]])
    expected = "\x00\xcc\x00\x00".b + [1, 2, 3, 4, 5, 6, 7, 8].pack("C*") + ("\xff".b * 8) +
               "\x00\x00\x00\x00\x00\x00\x00\x03".b + "\x00\x01k\x00\x00\x00\x01v".b
    assert_equal expected, payload
    assert_equal Encoding::BINARY, payload.encoding
  end

  def test_response_head_round_trips_over_a_socket_pair_with_its_timing_fields
    a, b = UNIXSocket.pair
    head = ResponseHead.new(status: 599, app_called_ns: 1_003_100_000, app_returned_ns: 1_103_100_000,
                            body_read_ns: 2_500_000, pairs: [["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x", ""]])
    a.write(head.encode)
    decoded = Wire.decode(Wire::Frame.read(b))
    assert_equal head.to_h, decoded.to_h
  ensure
    a&.close
    b&.close
  end

  def test_reserved_field_is_ignored_on_decode
    payload = ResponseHead.payload(200, 1, 2, 0, []).dup
    payload.setbyte(2, 0xab)
    assert_equal({ status: 200, app_called_ns: 1, app_returned_ns: 2, body_read_ns: 0, pairs: [], gvl_wait_ns: nil },
                 ResponseHead.decode(payload).to_h)
  end

  def test_a_gvl_wait_goes_after_body_read_and_sets_the_gvl_wait_flag
    head = ResponseHead.new(status: 200, app_called_ns: 1, app_returned_ns: 2, body_read_ns: 3, gvl_wait_ns: 0x0a0b,
                            pairs: [%w[k v]])
    frame = Wire::Frame.read_all(head.encode(Wire::Frame::END_STREAM)).first
    assert_equal Wire::Frame::END_STREAM | ResponseHead::GVL_WAIT, frame.flags
    assert_equal [200, 0, 1, 2, 3, 0x0a0b].pack("nnQ>Q>Q>Q>") + "\x00\x01k\x00\x00\x00\x01v".b, frame.payload
    assert_equal head.to_h, Wire.decode(frame).to_h
  end

  def test_a_head_without_the_gvl_wait_flag_has_no_gvl_wait_unknown_rather_than_zero
    frame = Wire::Frame.read_all(ResponseHead.new(status: 200, app_called_ns: 1, app_returned_ns: 2, body_read_ns: 0,
                                                  pairs: []).encode).first
    assert_equal 0, frame.flags
    assert_equal 28, frame.payload.bytesize
    assert_nil Wire.decode(frame).gvl_wait_ns
  end

  def test_append_frame_with_a_gvl_wait_writes_what_encode_does
    buffer = ResponseHead.append_frame(+"".b, 0, 200, 1, 2, 3, [%w[a b]], 77)
    expected = ResponseHead.new(status: 200, app_called_ns: 1, app_returned_ns: 2, body_read_ns: 3, gvl_wait_ns: 77,
                                pairs: [%w[a b]]).encode
    assert_equal expected, buffer
  end

  def test_with_the_gvl_wait_flag_a_payload_shorter_than_36_bytes_is_a_protocol_error
    whole = ResponseHead.payload(200, 1, 2, 3, [], 4)
    assert_equal 36, whole.bytesize
    frame = Wire::Frame.new(Wire::FrameType::RESPONSE_HEAD, ResponseHead::GVL_WAIT, whole.byteslice(0, 35))
    error = assert_raises(Wire::ProtocolError) { Wire.decode(frame) }
    assert_equal "RESPONSE_HEAD: payload of 35 bytes, at least 36 required", error.message
  end

  def test_payload_shorter_than_28_bytes_is_a_protocol_error
    whole = ResponseHead.payload(200, 1, 2, 3, [])
    assert_equal 28, whole.bytesize
    (0...28).each do |size|
      frame = Wire::Frame.new(Wire::FrameType::RESPONSE_HEAD, 0, whole.byteslice(0, size))
      error = assert_raises(Wire::ProtocolError, "#{size} bytes") { Wire.decode(frame) }
      assert_equal "RESPONSE_HEAD: payload of #{size} bytes, at least 28 required", error.message
    end
  end

  def test_truncated_header_pair_list_is_a_protocol_error
    whole = ResponseHead.payload(200, 1, 2, 3, [["content-type", "text/plain"]])
    (29...whole.bytesize).each do |size|
      assert_raises(Wire::ProtocolError, "#{size} bytes") { ResponseHead.decode(whole.byteslice(0, size)) }
    end
  end

  def test_append_frame_writes_the_same_bytes_as_encoding_the_payload_after_what_the_buffer_held
    pairs = [["content-type", "text/plain"], ["set-cookie", "a=1"], ["set-cookie", "b=" + "x" * 300]]
    buffer = +"before".b
    ResponseHead.append_frame(buffer, Wire::Frame::END_STREAM, 404, 10, 20, 30, pairs)
    expected = Wire::Frame.encode(Wire::FrameType::RESPONSE_HEAD, ResponseHead.payload(404, 10, 20, 30, pairs),
                                  Wire::Frame::END_STREAM)
    assert_equal "before".b + expected, buffer
    hijack = Wire::HijackHead.append_frame(+"".b, 0, 101, 1, 2, 3, [])
    assert_equal Wire::Frame.encode(Wire::FrameType::HIJACK_HEAD, Wire::HijackHead.payload(101, 1, 2, 3, [])), hijack
  end

  def test_append_frame_refuses_a_head_beyond_max_payload
    pairs = [["x-big", "v" * Wire::Frame::MAX_PAYLOAD]]
    assert_raises(Wire::ProtocolError) { ResponseHead.append_frame(+"".b, 0, 200, 1, 2, 3, pairs) }
  end

  def test_append_frame_runs_in_a_ractor_slot
    bytes = Ractor.new { PumaPlus::Wire::ResponseHead.append_frame(+"".b, 0, 200, 1, 2, 3, [%w[a b]]) }.take
    assert_equal Wire::Frame.encode(Wire::FrameType::RESPONSE_HEAD, ResponseHead.payload(200, 1, 2, 3, [%w[a b]])), bytes
  end
end
