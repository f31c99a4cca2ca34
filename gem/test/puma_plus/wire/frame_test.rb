# frozen_string_literal: true

# The frame header and reader: exact bytes, one frame per read over a real socket pair, clean EOF,
# and the checks that protect a reader from a broken or hostile peer.

require "test_helper"
require "socket"

class PumaPlus::Wire::FrameTest < PumaPlus::TestCase
  Frame = PumaPlus::Wire::Frame
  T = PumaPlus::Wire::FrameType

  def test_header_is_type_flags_u24_and_length_u32_big_endian
    bytes = Frame.encode(T::RESPONSE_BODY, "abc", Frame::END_STREAM)
    assert_equal "\x21\x00\x00\x01\x00\x00\x00\x03abc".b, bytes
    assert_equal Encoding::BINARY, bytes.encoding
  end

  def test_frames_round_trip_over_a_socket_pair_one_at_a_time
    a, b = UNIXSocket.pair
    a.write(Frame.encode(T::REQUEST, "x" * 70_000) + Frame.encode(T::BODY, "", Frame::END_STREAM))
    first = Frame.read(b)
    second = Frame.read(b)
    assert_equal [T::REQUEST, 0, 70_000], [first.type, first.flags, first.payload.bytesize]
    assert_equal [T::BODY, true, ""], [second.type, second.end_stream?, second.payload]
  ensure
    a&.close
    b&.close
  end

  def test_clean_end_of_stream_reads_as_nil
    a, b = UNIXSocket.pair
    a.close
    assert_nil Frame.read(b)
  ensure
    b&.close
  end

  def test_stream_ending_inside_a_header_or_payload_is_a_protocol_error
    assert_raises(PumaPlus::Wire::ProtocolError) { Frame.read(StringIO.new("\x10\x00\x00".b)) }
    truncated = Frame.encode(T::BODY, "0123456789").byteslice(0, 12)
    assert_raises(PumaPlus::Wire::ProtocolError) { Frame.read(StringIO.new(truncated)) }
  end

  def test_unknown_type_is_rejected_before_the_payload_is_read
    io = StringIO.new([0x7f << 24, 5].pack("NN") + "hello")
    error = assert_raises(PumaPlus::Wire::ProtocolError) { Frame.read(io) }
    assert_equal "0x7f: unknown frame type", error.message
    assert_equal 8, io.pos
  end

  def test_oversize_length_is_rejected_without_reading_the_payload
    io = StringIO.new([T::BODY << 24, Frame::MAX_PAYLOAD + 1].pack("NN"))
    error = assert_raises(PumaPlus::Wire::ProtocolError) { Frame.read(io) }
    assert_equal "BODY: payload length 1048577 exceeds MAX_PAYLOAD 1048576", error.message
    assert_equal 8, io.pos
  end

  def test_max_payload_is_allowed_and_one_more_byte_is_refused_on_encode
    assert_equal Frame::MAX_PAYLOAD + 8, Frame.encode(T::BODY, "a" * Frame::MAX_PAYLOAD).bytesize
    assert_raises(PumaPlus::Wire::ProtocolError) { Frame.encode(T::BODY, "a" * (Frame::MAX_PAYLOAD + 1)) }
  end

  def test_reserved_flag_bits_are_ignored_by_end_stream
    frame = Frame.read(StringIO.new([(T::BODY << 24) | 0xFFFFFE, 0].pack("NN")))
    refute frame.end_stream?
  end

  def test_append_writes_several_frames_into_one_buffer
    buffer = "".b
    Frame.append(buffer, T::RESPONSE_HEAD, "\x00\xc8\x00\x00".b)
    Frame.append(buffer, T::RESPONSE_BODY, "é", Frame::END_STREAM)
    frames = Frame.read_all(buffer)
    assert_equal [T::RESPONSE_HEAD, T::RESPONSE_BODY], frames.map(&:type)
    assert_equal "é".b, frames.last.payload
  end
end
