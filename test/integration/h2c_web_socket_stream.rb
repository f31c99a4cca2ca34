# The byte stream under a WebSocketClient for a WebSocket over HTTP/2 (RFC 8441): opens a cleartext h2c
# connection with prior knowledge, sends the extended CONNECT (:protocol websocket) on stream 1 once the
# server's SETTINGS allow it, and then carries the WebSocket's bytes in that stream's DATA frames, with the
# IO methods WebSocketClient uses (#write, #wait_readable, #read_nonblock, #close). Raw frames and literal
# HPACK fields, so the test needs no HTTP/2 library; no flow control beyond the initial windows (64 KiB
# each way), which the small messages of the tests stay under.
require "socket"
require "io/wait"

class H2cWebSocketStream
  PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".b
  DATA = 0x0
  HEADERS = 0x1
  RST_STREAM = 0x3
  SETTINGS = 0x4
  GOAWAY = 0x7
  END_STREAM = 0x1
  END_HEADERS = 0x4
  ACK = 0x1
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
    settings = next_frame(deadline) until settings&.first == SETTINGS && settings[1].nobits?(ACK)
    @socket.write(frame(SETTINGS, ACK, 0, ""))
    unless settings[2].scan(/.{6}/mn).any? { |s| s.unpack("nN") == [SETTINGS_ENABLE_CONNECT_PROTOCOL, 1] }
      raise Refused, "the server's SETTINGS do not enable extended CONNECT"
    end

    fields = { ":method" => "CONNECT", ":protocol" => "websocket", ":scheme" => "http", ":path" => path,
               ":authority" => "#{host}:#{port}", "sec-websocket-version" => "13" }.merge(headers)
    @socket.write(frame(HEADERS, END_HEADERS, STREAM, fields.map { |name, value| literal(name, value) }.join))
    head = next_frame(deadline) until head && head.first == HEADERS
    # :status 200 is entry 8 of HPACK's static table, which Netty sends indexed.
    raise Refused, "the server answered the CONNECT with #{head[2].inspect}" unless head[2].getbyte(0) == 0x88
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
    while (f = take_frame)
      type, flags, payload, stream = f
      case type
      when DATA
        @data << payload if stream == STREAM
        @ended = true if stream == STREAM && flags.anybits?(END_STREAM)
      when SETTINGS then @socket.write(frame(SETTINGS, ACK, 0, "")) if flags.nobits?(ACK)
      when RST_STREAM, GOAWAY then @ended = true
      end
    end
  rescue Errno::ECONNRESET
    @ended = true
  end

  # Reads until a whole frame is there (before the WebSocket is open); [type, flags, payload, stream].
  def next_frame(deadline)
    loop do
      f = take_frame
      return f if f

      remaining = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
      raise Refused, "no answer from the server in time" unless remaining.positive? && @socket.wait_readable(remaining)

      chunk = @socket.read_nonblock(65_536, exception: false)
      raise Refused, "the server closed the connection" if chunk.nil?

      @frames << chunk unless chunk == :wait_readable
    end
  end

  def take_frame
    return nil if @frames.bytesize < 9

    length = (@frames.getbyte(0) << 16) | @frames.byteslice(1, 2).unpack1("n")
    return nil if @frames.bytesize < 9 + length

    type = @frames.getbyte(3)
    flags = @frames.getbyte(4)
    stream = @frames.byteslice(5, 4).unpack1("N") & 0x7fff_ffff
    payload = @frames.byteslice(9, length)
    @frames = @frames.byteslice((9 + length)..)
    [type, flags, payload, stream]
  end

  def frame(type, flags, stream, payload)
    [payload.bytesize >> 16, payload.bytesize & 0xffff, type, flags, stream].pack("CnCCN") + payload.b
  end

  # A literal field without indexing, with a literal name (RFC 7541 section 6.2.2), no Huffman coding.
  def literal(name, value)
    "\x00".b + hpack_string(name) + hpack_string(value)
  end

  # An HPACK string literal: its length as an integer with a 7-bit prefix (RFC 7541 section 5.1), then its bytes.
  def hpack_string(text)
    length = text.bytesize
    prefix = if length < 127 then [length].pack("C")
             else
               bytes = [127]
               rest = length - 127
               while rest >= 128
                 bytes << ((rest % 128) + 128)
                 rest /= 128
               end
               (bytes << rest).pack("C*")
             end
    prefix + text.b
  end
end
