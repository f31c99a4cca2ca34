# HTTP/2 limits under abuse: a rapid-reset flood (CVE-2023-44487: thousands of HEADERS each followed by
# RST_STREAM, written raw) is cut off with GOAWAY while the server keeps answering other clients, leaves
# no request queued and no worker busy, and does not grow the host's memory without bound; a header list
# over the limit is answered 431 (far over it, the connection is closed).
require "socket"
require "server_helper"
require "tls_helper"

class H2AbuseTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 120
  PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".b
  FLOODS = 10 # connections, one after another
  PAIRS = 5000 # HEADERS + RST_STREAM per connection, unless the server closes first
  ENHANCE_YOUR_CALM = 0xb # the HTTP/2 error code of a GOAWAY for a peer that misbehaves (RFC 9113)

  def setup
    @server = start_server(app("probe.ru"), threads: 2)
  end

  def test_rapid_reset_flood_is_cut_off_and_leaves_the_server_answering_with_no_worker_busy
    rss_before = rss_kb
    codes = []
    sent = 0
    FLOODS.times do
      result = flood
      codes << result[:goaway_code]
      sent += result[:pairs]
      out, err, status = curl("--http2-prior-knowledge", "http://127.0.0.1:#{@server.port}/")
      assert status.success?, with_log(@server, "another client was not answered during the flood: #{err}")
      assert_equal "hello\n", out
    end
    diag("#{sent} HEADERS+RST_STREAM pairs sent over #{FLOODS} connections; GOAWAY codes #{codes.inspect}; " \
         "host RSS #{rss_before} -> #{rss_kb} kB")
    # The client may well get all its bytes into the socket buffers before the server has read them, so how
    # many it wrote does not show a cut-off; the server's GOAWAY does: ENHANCE_YOUR_CALM (0xb) is what the
    # rapid-reset protection sends when it closes the connection.
    assert_equal [ENHANCE_YOUR_CALM] * FLOODS, codes, "every flooding connection must be cut off with GOAWAY(ENHANCE_YOUR_CALM)"
    idle = eventually(timeout: 10) do
      queue = @server.stats.fetch("queue")
      queue if queue.fetch("busy_slots").zero? && @server.stats.fetch("backlog").zero?
    end
    assert idle, with_log(@server, "workers still busy or requests queued after the flood: #{@server.stats.inspect}")
    assert_operator rss_kb - rss_before, :<, 200 * 1024, "host memory grew by more than 200 MB"
  end

  # Raw frames, because curl's nghttp2 will not send a header block over 64 KiB.
  def test_header_list_over_the_limit_is_answered_431_and_far_over_it_closes_the_connection
    assert_equal :status_431, oversized_headers(120_000), "a 120 kB header list (limit 112 KiB)"
    assert_equal :closed, oversized_headers(400_000), "a 400 kB header list (over 1.25 times the limit)"
    out, err, status = curl("--http2-prior-knowledge", "http://127.0.0.1:#{@server.port}/")
    assert status.success?, err
    assert_equal "hello\n", out
  end

  # Sends GET / with one x-big header of +size+ bytes (literal, no Huffman) in HEADERS + CONTINUATION
  # frames; returns :status_431 when stream 1 is answered with :status 431, :closed when the server closes
  # the connection (GOAWAY or EOF) first, or the first other frame type seen.
  def oversized_headers(size)
    socket = TCPSocket.new("127.0.0.1", @server.port)
    block = [0x82, 0x86, 0x84].pack("C*") + [0x01, 9].pack("CC") + "127.0.0.1" +
            "\x00".b + hpack_int(5, 7) + "x-big" + hpack_int(size, 7) + ("a" * size)
    fragments = block.b.scan(/.{1,16384}/mn)
    frames = fragments.each_with_index.map do |fragment, i|
      last = i == fragments.size - 1
      frame(i.zero? ? 1 : 9, (last ? 0x4 : 0) | (i.zero? ? 0x1 : 0), 1, fragment)
    end
    begin
      socket.write(PREFACE + frame(4, 0, 0, "") + frames.join)
    rescue Errno::EPIPE, Errno::ECONNRESET
      return :closed
    end
    read_frames(socket) do |type, stream, payload|
      return :closed if type == 7
      # :status 431 is not in HPACK's static table: Netty sends it as a literal, "431" Huffman-coded.
      return :status_431 if type == 1 && stream == 1 && (payload.include?("431") || payload.include?("\x69\x90\xff".b))
      return :"frame_#{type}" if stream == 1
    end
    :closed
  ensure
    socket&.close
  end

  # Yields [type, stream, payload] of each frame the server sends, until EOF or 5 s.
  def read_frames(socket)
    data = +"".b
    deadline = monotonic + 5
    while monotonic < deadline && socket.wait_readable(deadline - monotonic)
      data << socket.readpartial(65_536)
      while data.bytesize >= 9
        length = (data.getbyte(0) << 16) | (data.getbyte(1) << 8) | data.getbyte(2)
        break if data.bytesize < 9 + length

        yield data.getbyte(3), data.byteslice(5, 4).unpack1("N") & 0x7fff_ffff, data.byteslice(9, length)
        data = data.byteslice((9 + length)..)
      end
    end
  rescue EOFError, Errno::ECONNRESET
    nil
  end

  # An HPACK integer with an N-bit prefix (RFC 7541 section 5.1), H bit clear.
  def hpack_int(value, bits)
    max = (1 << bits) - 1
    return [value].pack("C") if value < max

    out = [max]
    value -= max
    while value >= 128
      out << ((value % 128) + 128)
      value /= 128
    end
    out << value
    out.pack("C*")
  end

  # One connection: preface, SETTINGS, then HEADERS (GET /sleep?ms=300) + RST_STREAM(CANCEL) pairs until
  # PAIRS are written or the server closes. Returns { pairs: written, goaway: a GOAWAY frame was read }.
  def flood
    socket = TCPSocket.new("127.0.0.1", @server.port)
    socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
    socket.write(PREFACE + frame(4, 0, 0, ""))
    pairs = 0
    begin
      PAIRS.times.each_slice(100) do |slice|
        batch = slice.map do |i|
          id = 2 * i + 1
          frame(1, 0x5, id, header_block) + frame(3, 0, id, [8].pack("N"))
        end
        socket.write(batch.join)
        pairs += slice.size
      end
    rescue Errno::EPIPE, Errno::ECONNRESET
      nil # the server closed the connection: what it should do
    end
    { pairs: pairs, goaway_code: read_goaway(socket) }
  ensure
    socket&.close
  end

  # The error code of the server's GOAWAY, or nil when none arrived within 5 s.
  def read_goaway(socket)
    data = +"".b
    deadline = monotonic + 5
    while monotonic < deadline
      break unless socket.wait_readable(deadline - monotonic)

      data << socket.readpartial(65_536)
      pos = 0
      while data.bytesize >= pos + 9
        length = (data.getbyte(pos) << 16) | (data.getbyte(pos + 1) << 8) | data.getbyte(pos + 2)
        if data.getbyte(pos + 3) == 7 && data.bytesize >= pos + 17
          return data.byteslice(pos + 13, 4).unpack1("N")
        end
        pos += 9 + length
      end
    end
    nil
  rescue EOFError, Errno::ECONNRESET
    nil
  end

  # :method GET, :scheme http (indexed), :path and :authority as literals without indexing (RFC 7541).
  def header_block
    @header_block ||= begin
      path = "/sleep?ms=300"
      authority = "127.0.0.1"
      [0x82, 0x86].pack("C*") + [0x04, path.bytesize].pack("CC") + path + [0x01, authority.bytesize].pack("CC") + authority
    end
  end

  def frame(type, flags, stream, payload)
    [payload.bytesize >> 16, payload.bytesize & 0xffff, type, flags, stream].pack("CnCCN") + payload.b
  end

  def rss_kb
    Integer(File.read("/proc/#{@server.pid}/status")[/^VmRSS:\s+(\d+)/, 1])
  end
end
