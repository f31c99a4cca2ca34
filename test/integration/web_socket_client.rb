# A minimal RFC 6455 client for the integration tests (the client side of held WebSockets, and of
# Chromium's DevTools protocol): the opening handshake, masked frames with 7/16/64-bit lengths, pongs to
# pings, the closing handshake, and permessage-deflate (RFC 7692) when offered (DEFLATE) and agreed. Reads
# are buffered per client so a test can drive many connections from one thread with IO.select (#fill, then
# #next_message).
require "socket"
require "base64"
require "digest/sha1"
require "securerandom"
require "timeout"
require "io/wait"
require "zlib"

class WebSocketClient
  GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
  TEXT = 0x1
  BINARY = 0x2
  CLOSE = 0x8
  PING = 0x9
  PONG = 0xA
  # The handshake header that offers permessage-deflate, as browsers and Python's websockets client send it.
  DEFLATE = { "Sec-WebSocket-Extensions" => "permessage-deflate; client_max_window_bits" }.freeze
  # What RFC 7692 section 7.2.1 strips from the end of every compressed message (and the reader puts back).
  DEFLATE_TAIL = "\x00\x00\xff\xff".b

  class HandshakeRefused < StandardError
    attr_reader :status

    def initialize(status, head)
      @status = status
      super("handshake answered #{status}: #{head.lines.first&.strip}")
    end
  end

  attr_reader :socket, :response_head

  # Opens a TCP connection and performs the handshake for +path+; raises HandshakeRefused when the server
  # answers anything but 101 with the right Sec-WebSocket-Accept.
  def self.connect(host, port, path, headers: {}, timeout: 10)
    socket = Socket.tcp(host, port, connect_timeout: timeout)
    new(socket).tap { |client| client.handshake(host, port, path, headers, timeout) }
  rescue StandardError
    socket&.close
    raise
  end

  # +socket+: a connected socket, or anything with its #write, #wait_readable, #read_nonblock and #close
  # (an H2cWebSocketStream). +deflate+: permessage-deflate was agreed before, not by #handshake (on h2).
  def initialize(socket, deflate: false)
    @socket = socket
    @buffer = "".b
    start_deflate if deflate
  end

  def handshake(host, port, path, headers, timeout)
    key = Base64.strict_encode64(SecureRandom.random_bytes(16))
    extra = headers.map { |name, value| "#{name}: #{value}\r\n" }.join
    @socket.write("GET #{path} HTTP/1.1\r\nHost: #{host}:#{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
                  "Sec-WebSocket-Key: #{key}\r\nSec-WebSocket-Version: 13\r\n#{extra}\r\n")
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    until (ends = @buffer.index("\r\n\r\n"))
      raise IOError, "the server closed during the handshake: #{@buffer.inspect}" unless fill(deadline)
    end
    @response_head = @buffer.byteslice(0, ends + 4)
    @buffer = @buffer.byteslice((ends + 4)..)
    status = @response_head[%r{\AHTTP/1\.1 (\d{3})}, 1].to_i
    accept = Base64.strict_encode64(Digest::SHA1.digest(key + GUID))
    unless status == 101 && @response_head.downcase.include?("sec-websocket-accept: #{accept.downcase}")
      raise HandshakeRefused.new(status, @response_head + @buffer)
    end

    start_deflate if @response_head.match?(/^sec-websocket-extensions: *permessage-deflate/i)
  end

  # True once permessage-deflate was agreed: every message is then sent compressed, as browsers do.
  def deflate?
    !@deflater.nil?
  end

  def send_text(text)
    send_message(TEXT, text)
  end

  def send_binary(data)
    send_message(BINARY, data)
  end

  # One message in +fragments+ frames (compressed first when deflate was agreed, then cut into pieces).
  def send_message(opcode, data, fragments: 1)
    payload = deflate? ? compress(data.b) : data.b
    size = (payload.bytesize + fragments - 1) / fragments
    pieces = Array.new(fragments) { |i| payload.byteslice(i * size, size) || "".b }
    pieces.each_with_index do |piece, i|
      send_frame(i.zero? ? opcode : 0, piece, fin: i == fragments - 1, compressed: i.zero? && deflate?)
    end
  end

  # Starts the closing handshake with +code+.
  def close(code = 1000)
    send_frame(CLOSE, [code].pack("n"))
  end

  # One masked frame; +fin+ false for all but the last fragment of a message; +compressed+ sets RSV1 (the
  # first frame of a compressed message, RFC 7692 section 6).
  def send_frame(opcode, payload, fin: true, compressed: false)
    mask = SecureRandom.random_bytes(4)
    length = payload.bytesize
    head = [(fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode].pack("C")
    head << if length < 126 then [0x80 | length].pack("C")
            elsif length < 65_536 then [0x80 | 126, length].pack("Cn")
            else [0x80 | 127, length].pack("CQ>")
            end
    @socket.write(head + mask + xor(payload, mask))
  end

  # Reads what the socket has (waiting until +deadline+, a CLOCK_MONOTONIC second, for the first byte);
  # false when the server closed the connection.
  def fill(deadline)
    remaining = [deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC), 0].max
    raise Timeout::Error, "no bytes from the server in time" unless @socket.wait_readable(remaining)

    chunk = @socket.read_nonblock(65_536, exception: false)
    return false if chunk.nil?
    return true if chunk == :wait_readable

    @buffer << chunk
    true
  rescue Errno::ECONNRESET
    false
  end

  # The next whole message already read, as [opcode, payload] (a close as [CLOSE, code]), answering pings;
  # nil when more bytes are needed. Fragments are joined.
  def next_message
    loop do
      frame = take_frame
      return nil unless frame

      fin, opcode, payload, compressed = frame
      case opcode
      when PING then send_frame(PONG, payload)
      when PONG then next
      when CLOSE then return [CLOSE, payload.bytesize >= 2 ? payload.unpack1("n") : 1005]
      else
        @fragments = (@fragments || "".b) << payload
        unless opcode.zero?
          @fragment_opcode = opcode
          @fragments_compressed = compressed
        end
        next unless fin

        message = [@fragment_opcode, @fragments_compressed ? @inflater.inflate(@fragments << DEFLATE_TAIL) : @fragments]
        @fragments = nil
        return message
      end
    end
  end

  # The next frame already read, as [opcode, payload], pings not answered, fragments not joined nor
  # inflated; nil when more bytes are needed.
  def next_frame
    frame = take_frame
    frame && frame[1, 2]
  end

  # Waits for the next message (see #next_message) until +timeout+ seconds pass; nil when the server closed.
  def read_message(timeout: 10)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    loop do
      message = next_message
      return message if message
      return nil unless fill(deadline)
    end
  end

  private

  def take_frame
    return nil if @buffer.bytesize < 2

    b0, b1 = @buffer.unpack("CC")
    length = b1 & 0x7F
    offset = 2
    if length == 126
      return nil if @buffer.bytesize < 4

      length = @buffer.byteslice(2, 2).unpack1("n")
      offset = 4
    elsif length == 127
      return nil if @buffer.bytesize < 10

      length = @buffer.byteslice(2, 8).unpack1("Q>")
      offset = 10
    end
    raise IOError, "the server masked a frame" if b1.anybits?(0x80)
    return nil if @buffer.bytesize < offset + length

    payload = @buffer.byteslice(offset, length)
    @buffer = @buffer.byteslice((offset + length)..)
    [b0.anybits?(0x80), b0 & 0x0F, payload, b0.anybits?(0x40)]
  end

  # Both directions keep their compression context across messages (no *_no_context_takeover agreed).
  def start_deflate
    @deflater = Zlib::Deflate.new(Zlib::DEFAULT_COMPRESSION, -Zlib::MAX_WBITS)
    @inflater = Zlib::Inflate.new(-Zlib::MAX_WBITS)
  end

  def compress(data)
    compressed = @deflater.deflate(data, Zlib::SYNC_FLUSH)
    compressed.byteslice(0, compressed.bytesize - DEFLATE_TAIL.bytesize)
  end

  def xor(payload, mask)
    bytes = payload.unpack("C*")
    key = mask.unpack("C*")
    bytes.each_index { |i| bytes[i] ^= key[i & 3] }
    bytes.pack("C*")
  end
end
