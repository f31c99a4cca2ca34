# frozen_string_literal: true

# The worker link's buffered frame reader over a real socket pair: several frames taken from one read(2),
# a frame split across reads, a payload larger than a read completed exactly, Frame.read's errors, and a
# REQUEST that costs one read(2).

require "test_helper"
require "socket"

class PumaPlus::Wire::FrameReaderTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  Frame = Wire::Frame
  T = Wire::FrameType

  def setup
    @host, @worker = UNIXSocket.pair
    @reader = Wire::FrameReader.new(@worker)
  end

  def teardown
    @host.close unless @host.closed?
    @worker.close unless @worker.closed?
  end

  def test_frames_that_arrive_in_one_read_are_returned_one_at_a_time
    @host.write(Frame.encode(T::REQUEST, "env") + Frame.encode(T::BODY, "abc") +
                Frame.encode(T::BODY, "", Frame::END_STREAM))
    frames = Array.new(3) { @reader.read }
    assert_equal [[T::REQUEST, 0, "env"], [T::BODY, 0, "abc"], [T::BODY, Frame::END_STREAM, ""]],
                 frames.map { |f| [f.type, f.flags, f.payload] }
  end

  def test_a_frame_split_across_writes_is_reassembled
    bytes = Frame.encode(T::REQUEST, "split payload")
    reader = Thread.new { @reader.read }
    [bytes[0, 3], bytes[3, 7], bytes[10..]].each do |part|
      @host.write(part)
      Thread.pass until reader.stop? || !reader.alive?
    end
    assert_equal "split payload", reader.value.payload
  end

  def test_a_payload_larger_than_one_read_is_completed_without_reading_past_it
    big = Random.new(1).bytes(Wire::FrameReader::CHUNK * 3 + 5)
    @host.write(Frame.encode(T::BODY, big, Frame::END_STREAM) + Frame.encode(T::GOAWAY, "\x00\x00\x00\x00".b))
    assert_equal big, @reader.read.payload
    assert_equal T::GOAWAY, @reader.read.type
  end

  def test_clean_end_of_stream_reads_as_nil
    @host.write(Frame.encode(T::BODY, "x"))
    @host.close
    assert_equal "x", @reader.read.payload
    assert_nil @reader.read
  end

  def test_stream_ending_inside_a_header_or_payload_is_a_protocol_error_naming_the_frame
    @host.write("\x10\x00\x00".b)
    @host.close
    assert_raises(Wire::ProtocolError) { @reader.read }

    host, worker = UNIXSocket.pair
    host.write(Frame.encode(T::BODY, "abcdef")[0, 10])
    host.close
    error = assert_raises(Wire::ProtocolError) { Wire::FrameReader.new(worker).read }
    assert_equal "BODY: stream ended inside the payload", error.message
  ensure
    worker&.close
  end

  def test_unknown_type_and_oversize_length_are_rejected_before_the_payload_arrives
    @host.write([0x7f << 24, 4].pack("NN"))
    assert_equal "0x7f: unknown frame type", assert_raises(Wire::ProtocolError) { @reader.read }.message

    host, worker = UNIXSocket.pair
    host.write([T::BODY << 24, Frame::MAX_PAYLOAD + 1].pack("NN"))
    error = assert_raises(Wire::ProtocolError) { Wire::FrameReader.new(worker).read }
    assert_match(/\ABODY: payload length 1048577 exceeds/, error.message)
  ensure
    host&.close
    worker&.close
  end

  def test_the_socket_is_switched_to_blocking_mode_so_a_wait_is_one_read
    assert_equal 0, @worker.fcntl(Fcntl::F_GETFL) & File::NONBLOCK
  end
end
