# Connection deadlines and limits against the real host and workers (docs/CONFIG.md, docs/SECURITY.md
# "Deadlines and limits"), at the accept and parse steps: a header section that trickles is cut at
# header_timeout with 408; a TLS connection that sends no request is closed at first_data_timeout, its
# handshake included; an h2 connection with no stream gets GOAWAY at persistent_timeout, pings or not; an
# h2 client that never opens its window is closed at write_timeout; connections beyond max_connections
# wait unaccepted and are served once others close; a pipeline the client does not read is not read on.
require "socket"
require "openssl"
require "server_helper"
require "tls_helper"

class DeadlinesTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 60
  PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".b
  NO_ERROR = 0
  ENHANCE_YOUR_CALM = 0xb
  SLACK = 1.5 # seconds a deadline may be late by on a loaded 2-core machine

  def server_with(settings, threads: 2, rackup: app("probe.ru"), args: [])
    dir = temp_dir
    config = File.join(dir, "puma-plus.rb")
    File.write(config, settings)
    start_server(rackup, threads: threads, config: config, args: args)
  end

  def test_header_trickle_is_answered_408_and_closed_at_header_timeout_though_a_byte_comes_every_half_second
    server = server_with("header_timeout 3\nfirst_data_timeout 30\n")
    connection = server.connect
    socket = connection.socket
    started = monotonic
    trickle = Thread.new do
      "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: #{'a' * 100}".each_char do |byte|
        socket.write(byte)
        sleep 0.5
      end
    rescue Errno::EPIPE, Errno::ECONNRESET, IOError
      nil # closed by the server: what it should do
    end
    response = connection.read_response(timeout: 3 + 2 * SLACK)
    elapsed = monotonic - started
    assert_equal 408, response.status, with_log(server, "the trickled request's answer")
    assert_operator elapsed, :>=, 3 - 0.1, "408 before the header deadline"
    assert_operator elapsed, :<, 3 + SLACK, "408 late"
    assert connection.closed_by_server?(timeout: 5), "the connection must close after the 408"
    assert trickle.join(10), "the trickler stops once the server has closed"
    assert_equal "hello\n", server.request("GET", "/").body
  ensure
    connection&.close
  end

  def test_tls_connection_that_sends_no_request_is_closed_at_first_data_timeout_with_its_handshake_included
    cert, key = rsa_certificate(temp_dir)
    server = server_with("first_data_timeout 3\n", args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}"])
    port = tls_port(server)

    silent = TCPSocket.new("127.0.0.1", port) # not even a ClientHello
    started = monotonic
    assert silent.wait_readable(3 + 2 * SLACK), "a TCP connection to the TLS port that sends nothing stays open"
    assert_raises(EOFError, Errno::ECONNRESET) { silent.readpartial(1) }
    assert_in_delta 3 + SLACK / 2, monotonic - started, SLACK / 2 + 0.1

    raw = TCPSocket.new("127.0.0.1", port)
    started = monotonic
    sleep 1.5 # the handshake begins late: its time counts against the same deadline
    tls = OpenSSL::SSL::SSLSocket.new(raw, OpenSSL::SSL::SSLContext.new.tap { |c| c.verify_mode = OpenSSL::SSL::VERIFY_NONE })
    tls.connect
    assert tls.to_io.wait_readable(3 + 2 * SLACK), "a TLS connection that sends no request stays open"
    assert_nil(begin
      tls.sysread(1)
    rescue EOFError, Errno::ECONNRESET, OpenSSL::SSL::SSLError
      nil
    end)
    elapsed = monotonic - started
    assert_operator elapsed, :>=, 3 - 0.1
    assert_operator elapsed, :<, 3 + SLACK, "closed late: the clock started after the handshake, not at accept"
  ensure
    silent&.close
    raw&.close
  end

  def test_h2_connection_without_a_stream_gets_goaway_at_persistent_timeout_though_it_pings
    server = server_with("persistent_timeout 3\n")
    socket = TCPSocket.new("127.0.0.1", server.port)
    socket.write(PREFACE + frame(4, 0, 0, "") + frame(1, 0x5, 1, get_block("/")))
    frames = read_frames(socket, until_type: 0, timeout: 10) # the response's DATA, END_STREAM
    assert frames.any? { |type, stream, _| type == 0 && stream == 1 }, "no answer to stream 1: #{frames.inspect}"
    idle_from = monotonic
    goaway = nil
    until goaway || monotonic - idle_from > 3 + 2 * SLACK
      socket.write(frame(6, 0, 0, "12345678")) # PING: a frame, but no stream
      goaway = read_frames(socket, until_type: 7, timeout: 0.5).find { |type, _, _| type == 7 }
    end
    elapsed = monotonic - idle_from
    refute_nil goaway, with_log(server, "no GOAWAY within #{elapsed.round(1)} s of the last stream closing")
    assert_equal NO_ERROR, goaway[2].byteslice(4, 4).unpack1("N")
    assert_operator elapsed, :>=, 3 - 0.6
    assert_operator elapsed, :<, 3 + SLACK
    assert eof_within?(socket, 5), "the connection must close after the GOAWAY"
  ensure
    socket&.close
  end

  def test_h2_client_that_never_opens_its_window_is_closed_at_write_timeout_and_frees_its_worker
    server = server_with("write_timeout 3\n")
    socket = TCPSocket.new("127.0.0.1", server.port)
    # SETTINGS_INITIAL_WINDOW_SIZE = 0: no stream may carry a DATA byte until the client says so; it never does.
    socket.write(PREFACE + frame(4, 0, 0, [4, 0].pack("nN")) + frame(1, 0x5, 1, get_block("/sleep?ms=0")))
    started = monotonic
    frames = read_frames(socket, until_type: 7, timeout: 3 + 3 * SLACK)
    elapsed = monotonic - started
    refute frames.any? { |type, _, _| type == 0 }, "DATA sent into a zero window"
    goaway = frames.find { |type, _, _| type == 7 }
    refute_nil goaway, with_log(server, "no GOAWAY within #{elapsed.round(1)} s: #{frames.map(&:first).inspect}")
    assert_equal ENHANCE_YOUR_CALM, goaway[2].byteslice(4, 4).unpack1("N")
    assert_operator elapsed, :>=, 3 - 0.1
    assert_operator elapsed, :<, 3 + 1 + SLACK, "the write check runs each second: at most a second late"
    assert eof_within?(socket, 5), "closed after the GOAWAY"
    free = eventually(timeout: 5) { server.stats.fetch("queue").fetch("busy_slots").zero? }
    assert free, "a worker is still busy: #{server.stats.inspect}"
  ensure
    socket&.close
  end

  def test_connections_beyond_max_connections_wait_unaccepted_and_are_served_once_one_closes
    server = server_with("max_connections 3\nfirst_data_timeout 30\npersistent_timeout 30\n")
    held = Array.new(3) do
      connection = server.connect
      connection.write(RawHttp.request("GET", "/", {}, host: "x"))
      assert_equal 200, connection.read_response.status # accepted and served: the bound is not below 3
      connection
    end
    waiting = server.connect # completes in the kernel's backlog
    waiting.write(RawHttp.request("GET", "/", {}, host: "x"))
    assert_raises(RawHttp::Timeout, "the fourth connection must not be served while three are open") do
      waiting.read_response(timeout: 2)
    end
    held.shift.close
    started = monotonic
    response = waiting.read_response(timeout: 5)
    assert_equal 200, response.status
    diag("the waiting connection was served #{((monotonic - started) * 1000).round} ms after one closed")
    assert_equal 200, held.first.write(RawHttp.request("GET", "/", {}, host: "x")).read_response.status
  ensure
    (held || []).each(&:close)
    waiting&.close
  end

  REQUESTS = 100_000
  PAD = "p" * 300

  def test_a_pipeline_the_client_does_not_read_stops_being_read_at_the_bound_and_the_host_stays_answering
    server = server_with("max_pipelined_requests 4\nwrite_timeout 60\n", rackup: app("big_body.ru"))
    rss_before = rss_kb(server)
    connection = server.connect
    request = RawHttp.request("GET", "/?chunks=2", { "X-Pad" => PAD }, host: "x")
    total = request.bytesize * REQUESTS
    written = 0
    stalled_for = 0.0
    batch = request * 1000
    pending = +"".b
    sent_batches = 0
    # Write without blocking until the socket has taken nothing for 3 s: the host stopped reading.
    until written >= total || stalled_for >= 3
      if pending.empty? && sent_batches < REQUESTS / 1000
        pending = batch.dup
        sent_batches += 1
      end
      begin
        n = connection.socket.write_nonblock(pending)
        written += n
        pending = pending.byteslice(n..)
        stalled_for = 0.0
      rescue IO::WaitWritable
        started = monotonic
        connection.socket.wait_writable(0.5)
        stalled_for += monotonic - started
      end
    end
    diag("wrote #{written} of #{total} bytes before the host stopped reading; RSS #{rss_before} -> #{rss_kb(server)} kB")
    assert_operator written, :<, total / 2, "the host read on past the bound (or buffered the pipeline)"
    out, status = Open3.capture2("curl", "-sS", "--max-time", "5", "http://127.0.0.1:#{server.port}/?chunks=1")
    assert status.success?, with_log(server, "another client was not answered")
    assert_equal 65_536, out.bytesize
    assert_operator rss_kb(server) - rss_before, :<, 150 * 1024, "host memory grew by more than 150 MB"
    # The held connection is still served, in order, once its client reads.
    response = connection.read_response(timeout: 10)
    assert_equal 200, response.status
    assert_equal "a" * 65_536 + "b" * 65_536, response.body
  ensure
    connection&.close
  end

  private

  def rss_kb(server)
    Integer(File.read("/proc/#{server.pid}/status")[/^VmRSS:\s+(\d+)/, 1])
  end

  def eof_within?(socket, seconds)
    deadline = monotonic + seconds
    while monotonic < deadline
      return false unless socket.wait_readable(deadline - monotonic)

      socket.readpartial(65_536)
    end
    false
  rescue EOFError, Errno::ECONNRESET
    true
  end

  # Frames the server sends, as [type, stream, payload], until one of +until_type+ arrives, EOF, or
  # +timeout+ seconds pass.
  def read_frames(socket, until_type:, timeout:)
    @frame_data ||= {}
    data = (@frame_data[socket] ||= +"".b)
    frames = []
    deadline = monotonic + timeout
    loop do
      while data.bytesize >= 9
        length = (data.getbyte(0) << 16) | (data.getbyte(1) << 8) | data.getbyte(2)
        break if data.bytesize < 9 + length

        frames << [data.getbyte(3), data.byteslice(5, 4).unpack1("N") & 0x7fff_ffff, data.byteslice(9, length)]
        data.replace(data.byteslice((9 + length)..))
        return frames if frames.last[0] == until_type
      end
      remaining = deadline - monotonic
      break if remaining <= 0 || !socket.wait_readable(remaining)

      data << socket.readpartial(65_536)
    end
    frames
  rescue EOFError, Errno::ECONNRESET
    frames
  end

  # :method GET, :scheme http, :path PATH, :authority 127.0.0.1 (literals without indexing, RFC 7541).
  def get_block(path)
    [0x82, 0x86].pack("C*") + [0x04, path.bytesize].pack("CC") + path + [0x01, 9].pack("CC") + "127.0.0.1"
  end

  def frame(type, flags, stream, payload)
    [payload.bytesize >> 16, payload.bytesize & 0xffff, type, flags, stream].pack("CnCCN") + payload.b
  end
end
