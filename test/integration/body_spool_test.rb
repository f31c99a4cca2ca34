# No slot is ever held by a client's request body: an upload trickling in is held by the host (in memory,
# then spooled to an unnamed file) and only the whole body is queued, so other requests are served on the
# one slot meanwhile and the app gets the body intact as a rewindable File; a body over
# http_content_length_limit is answered 413 and one that stalls for first_data_timeout 408 (HTTP/1.1 and
# h2), neither seen by the app; over h2, 100 streams trickling bodies on one connection hold no slot; and a
# response an h2 client never opens its window for frees its slot once the worker wrote it, then still
# arrives whole.
require "digest"
require "open3"
require "socket"
require "server_helper"

class BodySpoolTest < IntegrationTest
  TEST_TIMEOUT = 90
  UPLOAD_BYTES = 20_000_000
  LIMIT_BYTES = 21_000_000
  FIRST_DATA_TIMEOUT = 3
  PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".b

  def setup
    config = File.join(temp_dir, "bodies.rb")
    # shed_wait_limit false: the 100 h2 streams become runnable together on one slot, which is no reason to
    # answer some of them 503 here.
    File.write(config, "first_data_timeout #{FIRST_DATA_TIMEOUT}\nhttp_content_length_limit #{LIMIT_BYTES}\n" \
                       "shed_wait_limit false\n")
    @log = File.join(temp_dir, "app.log")
    @server = start_server(app("bodies.ru"), workers: 1, threads: 1, config: config)
  end

  def test_a_20_mb_upload_trickled_over_10_s_holds_no_slot_and_reaches_the_app_whole_as_a_rewindable_file
    body = Random.new(15).bytes(UPLOAD_BYTES)
    connection = @server.connect
    connection.write(RawHttp.request("POST", "/upload", { "Content-Length" => UPLOAD_BYTES.to_s,
                                                          "Content-Type" => "application/octet-stream" }))
    pieces = 200 # 100 kB every 50 ms: 10 s
    started = monotonic
    last_piece = false # set before the last piece goes out: from then on the upload may be whole and running
    uploader = Thread.new do
      pieces.times do |i|
        due = started + (i + 1) * 10.0 / pieces
        sleep(due - monotonic) if due > monotonic
        last_piece = true if i == pieces - 1
        connection.write(body.byteslice(i * UPLOAD_BYTES / pieces, UPLOAD_BYTES / pieces))
      end
    end
    served = 0
    busy = []
    while uploader.alive?
      answer = @server.request("GET", "/other", {}, timeout: 5)
      assert_equal 200, answer.status, with_log(@server, "another request on the one slot while the upload trickles")
      served += 1
      slots = @server.stats.fetch("queue").fetch("busy_slots")
      # Read before the last piece left, the body was still incomplete; a read after it may find the whole
      # upload dispatched, its slot rightly busy (a loaded machine made that race fail the claim).
      busy << slots unless last_piece
      sleep 0.2
    end
    uploader.join
    diag("#{served} other requests served on the one slot during the #{(monotonic - started).round(1)} s upload")
    assert_operator served, :>=, 10, "other requests were served while the upload trickled"
    assert_equal [0] * busy.size, busy, "no slot was busy between them: the upload holds none"
    response = connection.read_response(timeout: 30)
    assert_equal 200, response.status, with_log(@server, response.body)
    seen = JSON.parse(response.body)
    assert_equal({ "class" => "File", "size" => UPLOAD_BYTES, "sha256" => Digest::SHA256.hexdigest(body),
                   "rewound" => true }, seen)
  ensure
    connection&.close
  end

  def test_a_body_over_http_content_length_limit_is_answered_413_and_never_reaches_the_app
    declared = @server.request("POST", "/upload?log=#{@log}", { "Content-Length" => (LIMIT_BYTES + 1).to_s },
                               timeout: 10)
    assert_equal 413, declared.status, "a declared length over the limit"
    connection = @server.connect
    connection.write(RawHttp.request("POST", "/upload?log=#{@log}", { "Transfer-Encoding" => "chunked" }))
    chunk = "x" * 1_000_000
    writer = connection.write_in_background(("#{chunk.bytesize.to_s(16)}\r\n#{chunk}\r\n" * 22) + "0\r\n\r\n")
    grown = connection.read_response(timeout: 30)
    assert_equal 413, grown.status, "a chunked body growing past the limit"
    writer.join(10)
    assert_equal 200, @server.request("GET", "/", {}).status
    refute File.exist?(@log) && File.read(@log).include?("/upload"), "the app saw a body over the limit"
  ensure
    connection&.close
  end

  def test_a_body_that_stalls_is_answered_408_at_first_data_timeout_and_never_reaches_the_app
    connection = @server.connect
    connection.write(RawHttp.request("POST", "/upload?log=#{@log}", { "Content-Length" => "100" }))
    connection.write("x" * 10)
    sent = monotonic
    response = connection.read_response(timeout: FIRST_DATA_TIMEOUT + 5)
    waited = monotonic - sent
    assert_equal 408, response.status
    assert_in_delta FIRST_DATA_TIMEOUT, waited, 1.0, "408 came #{waited.round(2)} s after the last body byte"
    assert connection.closed_by_server?, "the connection closes after the 408"
    assert_equal 200, @server.request("GET", "/", {}).status
    refute File.exist?(@log), "the app saw a stalled body"
  ensure
    connection&.close
  end

  def test_an_h2_stream_whose_body_stalls_is_answered_408_at_first_data_timeout_and_never_reaches_the_app
    socket = h2_connect
    socket.write(frame(1, 0x4, 1, request_block("POST", "/upload?log=#{@log}", "content-length" => "100")))
    socket.write(frame(0, 0, 1, "x" * 10))
    sent = monotonic
    answer = +""
    read_frames(socket, FIRST_DATA_TIMEOUT + 5) do |type, stream, payload|
      answer << payload if type == 0 && stream == 1
      break if answer.include?("\n")
    end
    waited = monotonic - sent
    assert_equal "408 Request Timeout\n", answer, with_log(@server, "the stalled stream's answer")
    assert_in_delta FIRST_DATA_TIMEOUT, waited, 1.0, "408 came #{waited.round(2)} s after the last body byte"
    refute File.exist?(@log), "the app saw a stalled body"
  ensure
    socket&.close
  end

  def test_h2_100_streams_trickling_bodies_on_one_connection_hold_no_slot
    socket = h2_connect
    streams = (0...100).map { |i| 2 * i + 1 }
    body = "y" * 500 # 100 streams x 500 bytes stays inside the connection's initial 65,535-byte window
    streams.each do |id|
      socket.write(frame(1, 0x4, id, request_block("POST", "/upload", "content-length" => body.bytesize.to_s)))
    end
    busy = []
    served = 0
    4.times do |round| # 4 of 5 pieces, about a second apart; then the last, which makes them runnable
      streams.each { |id| socket.write(frame(0, 0, id, body.byteslice(round * 100, 100))) }
      out, = Open3.capture3("curl", "-sS", "--max-time", "5", "http://127.0.0.1:#{@server.port}/other")
      served += 1 if out == "ok\n"
      busy << @server.stats.fetch("queue").fetch("busy_slots")
      sleep 0.8
    end
    assert_equal 4, served, "another client was served on the one slot while 100 streams trickled"
    assert_equal [0] * 4, busy, "no slot was busy while the bodies trickled"
    streams.each { |id| socket.write(frame(0, 0x1, id, body.byteslice(400, 100))) }
    answered = Hash.new { |h, k| h[k] = +"".b }
    ended = 0
    read_frames(socket, 30) do |type, stream, payload, flags|
      next unless type == 0 && streams.include?(stream) # DATA: the app's JSON

      answered[stream] << payload
      ended += 1 if flags & 0x1 != 0
      break if ended == streams.size
    end
    assert_equal streams.size, ended, with_log(@server, "every stream is answered once its body is whole")
    sha = Digest::SHA256.hexdigest(body)
    answered.each_value { |json| assert_equal sha, JSON.parse(json).fetch("sha256") }
  ensure
    socket&.close
  end

  def test_h2_client_with_a_zero_window_frees_the_slot_once_the_worker_wrote_the_response
    socket = h2_connect(initial_window: 0)
    kib = 4096
    socket.write(frame(1, 0x5, 1, request_block("GET", "/large?kib=#{kib}")))
    freed = eventually(timeout: 15) { @server.stats.fetch("queue").fetch("busy_slots").zero? && served_other? }
    assert freed, with_log(@server, "the slot stayed busy while the client's window is closed: #{@server.stats.inspect}")
    received = 0
    ended = false
    read_frames(socket, 1) { |type, _stream, payload| received += payload.bytesize if type == 0 }
    assert_equal 0, received, "nothing could be sent into a zero window"
    socket.write(frame(8, 0, 0, [1 << 30].pack("N")) + frame(8, 0, 1, [1 << 30].pack("N")))
    read_frames(socket, 30) do |type, stream, payload, flags|
      next unless type == 0 && stream == 1

      received += payload.bytesize
      ended = flags & 0x1 != 0
      break if ended
    end
    assert ended, "the held response is delivered once the window opens"
    assert_equal kib * 1024, received
  ensure
    socket&.close
  end

  private

  # Another request on the one slot is served (so the slot is free for real, not just counted free).
  def served_other?
    @server.request("GET", "/other", {}, timeout: 5).status == 200
  end

  # A cleartext h2 connection (prior knowledge) with our SETTINGS sent and the server's acknowledged.
  def h2_connect(initial_window: nil)
    socket = TCPSocket.new("127.0.0.1", @server.port)
    socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
    settings = initial_window ? [4, initial_window].pack("nN") : ""
    socket.write(PREFACE + frame(4, 0, 0, settings))
    socket
  end

  def frame(type, flags, stream, payload)
    [payload.bytesize >> 16, payload.bytesize & 0xffff, type, flags, stream].pack("CnCCN") + payload.b
  end

  # An HPACK block: literal fields without indexing, names from the static table (RFC 7541 appendix A).
  def request_block(method, path, extra = {})
    block = (method == "GET" ? [0x82] : [0x83]).pack("C*") + [0x86].pack("C") # :method, :scheme http
    block << literal(4, path) << literal(1, "127.0.0.1") # :path, :authority
    extra.each do |name, value|
      block << [0x00, name.bytesize].pack("CC") << name << [value.bytesize].pack("C") << value
    end
    block.b
  end

  def literal(name_index, value)
    [name_index, value.bytesize].pack("CC") + value
  end

  # Yields [type, stream, payload, flags] of each frame the server sends until EOF, a break, or `seconds`;
  # acknowledges the server's SETTINGS and answers PINGs so the connection stays healthy.
  def read_frames(socket, seconds)
    data = +"".b
    deadline = monotonic + seconds
    while monotonic < deadline && socket.wait_readable(deadline - monotonic)
      data << socket.readpartial(65_536)
      while data.bytesize >= 9
        length = (data.getbyte(0) << 16) | (data.getbyte(1) << 8) | data.getbyte(2)
        break if data.bytesize < 9 + length

        type = data.getbyte(3)
        flags = data.getbyte(4)
        stream = data.byteslice(5, 4).unpack1("N") & 0x7fff_ffff
        payload = data.byteslice(9, length)
        data = data.byteslice((9 + length)..)
        socket.write(frame(4, 0x1, 0, "")) if type == 4 && flags & 0x1 == 0
        yield type, stream, payload, flags
      end
    end
  rescue EOFError, Errno::ECONNRESET
    nil
  end
end
