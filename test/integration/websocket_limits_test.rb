# The limits of WebSockets held by the host (docs/WEBSOCKETS.md, "Limits"), each set low in a config file:
# a message over websocket_max_message closes its connection with 1009, a client that reads nothing while
# the app sends past websocket_outbound_limit is closed with 1008, and an upgrade beyond
# websocket_max_connections is answered 503 by the host without reaching the app; with websocket_ping_interval
# a silent client is pinged, one that answers stays, one that stays silent for two intervals is closed.
# The message limit also at its default, over HTTP/1.1 and h2, in one frame or two, compressed
# (permessage-deflate) or not.
require "server_helper"
require "web_socket_client"
require "h2c_web_socket_stream"

class WebsocketLimitsTest < IntegrationTest
  TEST_TIMEOUT = 120
  # Ten bytes over the default websocket_max_message: the message issue 33's client sent.
  OVER_DEFAULT_LIMIT = (1 << 20) + 10

  # Requests the workers have completed, WebSocket events included (/stats).
  def completed_requests(server)
    server.stats["worker_status"].sum { |worker| worker.dig("last_status", "requests_count") }
  end

  # Runs the block, which writes a frame over the frame limit: the host fails the connection as soon as it has
  # read the frame's header (RFC 6455 section 7.1.7: its close frame, then the socket closed at once), so
  # the rest of the frame may meet a closed socket; its close frame is already on the way.
  def send_over_the_host_closing
    yield
  rescue Errno::EPIPE, Errno::ECONNRESET
    nil
  end

  def start_limited_server(extra = "")
    config = File.join(temp_dir, "puma-plus.rb")
    File.write(config, "websocket_max_message 1024\nwebsocket_outbound_limit 65_536\nwebsocket_max_connections 3\n#{extra}")
    start_server(app("websocket_held.ru"), workers: 1, threads: 2, config: config)
  end

  def test_a_message_over_the_limit_closes_with_1009_and_one_at_the_limit_is_answered
    server = start_limited_server
    client = WebSocketClient.connect("127.0.0.1", server.port, "/ws")
    client.send_text("a" * 1024)
    assert_match(/\Aa{1024} \d+\z/, client.read_message(timeout: 10).last, "a message of exactly the limit passes")
    client.send_text("b" * 1025)
    assert_equal [WebSocketClient::CLOSE, 1009], client.read_message(timeout: 10)
  ensure
    client&.socket&.close
  end

  # Compressed, the message is about 1 KiB on the wire: the frame decoder's limit never sees its size.
  def test_a_compressed_message_at_the_limit_is_answered_and_one_a_byte_over_it_closes_with_1009
    server = start_limited_server
    client = WebSocketClient.connect("127.0.0.1", server.port, "/ws", headers: WebSocketClient::DEFLATE)
    assert client.deflate?, "the host agreed to permessage-deflate"
    client.send_text("a" * 1024)
    assert_match(/\Aa{1024} \d+\z/, client.read_message(timeout: 10).last, "a message of exactly the limit passes")
    client.send_text("b" * 1025)
    assert_equal [WebSocketClient::CLOSE, 1009], client.read_message(timeout: 10), with_log(server, "no 1009")
  ensure
    client&.socket&.close
  end

  def test_one_frame_over_the_default_limit_closes_with_1009_compressed_or_not
    server = start_server(app("websocket_held.ru"), workers: 1, threads: 2)
    plain = WebSocketClient.connect("127.0.0.1", server.port, "/ws")
    send_over_the_host_closing { plain.send_text("a" * OVER_DEFAULT_LIMIT) }
    assert_equal [WebSocketClient::CLOSE, 1009], plain.read_message(timeout: 10), "an uncompressed frame"
    compressed = WebSocketClient.connect("127.0.0.1", server.port, "/ws", headers: WebSocketClient::DEFLATE)
    assert compressed.deflate?, "the host agreed to permessage-deflate"
    compressed.send_text("a" * OVER_DEFAULT_LIMIT)
    assert_equal [WebSocketClient::CLOSE, 1009], compressed.read_message(timeout: 10),
                 with_log(server, "a compressed frame")
  ensure
    [plain, compressed].compact.each { |client| client.socket.close }
  end

  def test_two_fragments_over_the_default_limit_together_close_with_1009_compressed_or_not
    server = start_server(app("websocket_held.ru"), workers: 1, threads: 2)
    plain = WebSocketClient.connect("127.0.0.1", server.port, "/ws")
    plain.send_message(WebSocketClient::TEXT, "a" * OVER_DEFAULT_LIMIT, fragments: 2)
    assert_equal [WebSocketClient::CLOSE, 1009], plain.read_message(timeout: 10), "uncompressed fragments"
    compressed = WebSocketClient.connect("127.0.0.1", server.port, "/ws", headers: WebSocketClient::DEFLATE)
    compressed.send_message(WebSocketClient::TEXT, "a" * OVER_DEFAULT_LIMIT, fragments: 2)
    assert_equal [WebSocketClient::CLOSE, 1009], compressed.read_message(timeout: 10), "compressed fragments"
  ensure
    [plain, compressed].compact.each { |client| client.socket.close }
  end

  # An extended CONNECT on an h2c connection (prior knowledge): the stream's DATA frames carry the same
  # frames, through the same codec; compressed, they fit the stream's first 64 KiB window.
  def test_over_h2_one_compressed_frame_or_two_fragments_over_the_default_limit_close_with_1009
    server = start_server(app("websocket_held.ru"), workers: 1, threads: 2)
    clients = [1, 2].map do |fragments|
      stream = H2cWebSocketStream.open("127.0.0.1", server.port, "/ws",
                                       { "sec-websocket-extensions" => "permessage-deflate" })
      WebSocketClient.new(stream, deflate: true).tap do |client|
        client.send_text("protocol")
        assert_equal [WebSocketClient::TEXT, "HTTP/2"], client.read_message(timeout: 10), "a WebSocket over h2"
        client.send_message(WebSocketClient::TEXT, "a" * OVER_DEFAULT_LIMIT, fragments: fragments)
        assert_equal [WebSocketClient::CLOSE, 1009], client.read_message(timeout: 10),
                     with_log(server, "#{fragments} compressed frame(s) over h2")
      end
    end
  ensure
    Array(clients).each { |client| client.socket.close }
  end

  def test_a_client_that_reads_nothing_while_the_app_floods_it_is_closed_with_1008
    server = start_limited_server
    before = completed_requests(server)
    client = WebSocketClient.connect("127.0.0.1", server.port, "/ws")
    client.send_text("flood")
    # Read nothing until the app's 200 x 64 KiB are sent: the socket buffers fill, the host's pending bytes
    # pass 64 KiB, and it gives up on this client. The upgrade, the open event and the flood message are
    # three requests; a busy count of 0 alone could be read before the flood was even dispatched.
    flooded = eventually(timeout: 30) do
      completed_requests(server) >= before + 3 && server.stats.dig("queue", "busy_slots").zero?
    end
    assert flooded, with_log(server, "the app did not finish its flood")
    texts = 0
    last = nil
    while (last = client.read_message(timeout: 20))
      break if last.first == WebSocketClient::CLOSE

      texts += 1
    end
    assert_equal [WebSocketClient::CLOSE, 1008], last, with_log(server, "after #{texts} messages")
    assert_operator texts, :<, 200, "the messages past the limit were dropped"
  ensure
    client&.socket&.close
  end

  def test_an_upgrade_beyond_the_connection_limit_is_answered_503_by_the_host
    server = start_limited_server
    held = Array.new(3) { WebSocketClient.connect("127.0.0.1", server.port, "/ws") }
    error = assert_raises(WebSocketClient::HandshakeRefused) { WebSocketClient.connect("127.0.0.1", server.port, "/ws") }
    assert_equal 503, error.status
    held.first.close
    assert_equal WebSocketClient::CLOSE, held.first.read_message(timeout: 10)&.first
    fourth = eventually(timeout: 10) do
      WebSocketClient.connect("127.0.0.1", server.port, "/ws")
    rescue WebSocketClient::HandshakeRefused
      nil
    end
    assert fourth, "a closed connection frees its place"
  ensure
    (Array(held) + [fourth]).compact.each { |client| client.socket.close }
  end

  def test_a_client_that_answers_pings_stays_and_one_silent_for_two_intervals_is_closed_with_1001
    server = start_limited_server("websocket_ping_interval 1\n")
    answering = WebSocketClient.connect("127.0.0.1", server.port, "/ws")
    silent = WebSocketClient.connect("127.0.0.1", server.port, "/ws")
    # The answering client reads (and so answers every ping) for three intervals; the silent one reads nothing.
    begin
      message = answering.read_message(timeout: 3.5)
      flunk "the answering client got #{message.inspect} (nil: it was closed)"
    rescue Timeout::Error
      nil # only pings came, each answered
    end
    answering.send_text("still here")
    assert_match(/\Astill here \d+\z/, answering.read_message(timeout: 10)&.last, "a client that answers pings stays")
    frames = []
    deadline = monotonic + 10
    until frames.last&.first == WebSocketClient::CLOSE
      frame = silent.next_frame
      if frame
        frames << frame
      else
        assert silent.fill(deadline), "the silent client's connection ended without a close frame: #{frames}"
      end
    end
    assert_equal WebSocketClient::PING, frames.first&.first, "the silent client was pinged first"
    assert_equal 1001, frames.last.last.unpack1("n"), "then closed as going away"
  ensure
    [answering, silent].compact.each { |client| client.socket.close }
  end
end
