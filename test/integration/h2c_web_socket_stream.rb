# The byte stream under a WebSocketClient for a WebSocket over HTTP/2 (RFC 8441): opens a cleartext h2c
# connection with prior knowledge, sends the extended CONNECT (:protocol websocket) on stream 1 once the
# server's SETTINGS allow it, and then carries the WebSocket's bytes in that stream's DATA frames, with the
# IO methods WebSocketClient uses (#write, #wait_readable, #read_nonblock, #close). Raw frames and literal
# HPACK fields, so the test needs no HTTP/2 library; no flow control beyond the initial windows (64 KiB
# each way), which the small messages of the tests stay under.
require "socket"
require "io/wait"
require "h2_frames"

class H2cWebSocketStream
  include H2Frames
  SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8
  STREAM = 1

  class Refused < StandardError; end

  # Connects to +host+:+port+ and opens the WebSocket on +path+ with +headers+ (lower-case names); returns
  # the stream once the server answered :status 200, raises Refused when it answered anything else.
  def self.open(host, port, path, headers = {}, timeout: 10)
    stream = new(Socket.tcp(host, port, connect_timeout: timeout))
    stream.connect(host, port, path, headers, timeout)
    stream
  end

  def initialize(socket)
    @socket = socket
    @frames = "".b
    @data = "".b
    @ended = false
  end

  def connect(host, port, path, headers, timeout)
    @socket.write(PREFACE + frame(SETTINGS, 0, 0, ""))
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    settings = next_frame(deadline) until settings&.type == SETTINGS && settings.flags.nobits?(ACK)
    @socket.write(frame(SETTINGS, ACK, 0, ""))
    unless settings.payload.scan(/.{6}/mn).any? { |s| s.unpack("nN") == [SETTINGS_ENABLE_CONNECT_PROTOCOL, 1] }
      raise Refused, "the server's SETTINGS do not enable extended CONNECT"
    end

    fields = { ":method" => "CONNECT", ":protocol" => "websocket", ":scheme" => "http", ":path" => path,
               ":authority" => "#{host}:#{port}", "sec-websocket-version" => "13" }.merge(headers)
    @socket.write(frame(HEADERS, END_HEADERS, STREAM, fields.map { |name, value| literal(name, value) }.join))
    head = next_frame(deadline) until head&.type == HEADERS
    # :status 200 is entry 8 of HPACK's static table, which Netty sends indexed.
    raise Refused, "the server answered the CONNECT with #{head.payload.inspect}" unless head.payload.getbyte(0) == 0x88
  end

  # Writes +bytes+ as one DATA frame on the stream.
  def write(bytes)
    @socket.write(frame(DATA, 0, STREAM, bytes))
    bytes.bytesize
  end

  # True when stream bytes (or the stream's end) can be read without waiting, or the socket becomes
  # readable within +timeout+ seconds.
  def wait_readable(timeout)
    return true if !@data.empty? || @ended

    @socket.wait_readable(timeout) ? true : nil
  end

  # As IO#read_nonblock with exception: false (it never raises): the stream's bytes read so far (at most
  # +max+), :wait_readable when none yet, nil once the stream (or the connection) has ended and every byte was
  # read. Other frames are read and dropped; SETTINGS acknowledged.
  def read_nonblock(max, exception: false)
    fill_data
    if @data.empty?
      return nil if @ended

      return :wait_readable
    end
    chunk = @data.byteslice(0, max)
    @data = @data.byteslice(max..) || "".b
    chunk
  end

  def close
    @socket.close
  end

  private

  def fill_data
    chunk = @socket.read_nonblock(65_536, exception: false)
    if chunk.nil?
      @ended = true
    elsif chunk != :wait_readable
      @frames << chunk
    end
    while (f = next_buffered_frame)
      case f.type
      when DATA
        @data << f.payload if f.stream == STREAM
        @ended = true if f.stream == STREAM && f.flags.anybits?(END_STREAM)
      when SETTINGS then @socket.write(frame(SETTINGS, ACK, 0, "")) if f.flags.nobits?(ACK)
      when RST_STREAM, GOAWAY then @ended = true
      end
    end
  rescue Errno::ECONNRESET
    @ended = true
  end

  # Reads until a whole frame is there (before the WebSocket is open).
  def next_frame(deadline)
    loop do
      f = next_buffered_frame
      return f if f

      remaining = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
      raise Refused, "no answer from the server in time" unless remaining.positive? && @socket.wait_readable(remaining)

      chunk = @socket.read_nonblock(65_536, exception: false)
      raise Refused, "the server closed the connection" if chunk.nil?

      @frames << chunk unless chunk == :wait_readable
    end
  end

  # The next whole frame already read, or nil.
  def next_buffered_frame
    f, rest = take_frame(@frames)
    @frames = rest if f
    f
  end
end
