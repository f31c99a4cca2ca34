# HTTP/1.1 behaviour of the protocol-h1 bundle end to end: raw bytes from a TCP client, through the host's
# queue, to real Ruby workers running the probe app, and back. One server (2 workers x 2 threads) is shared
# by these tests: none of them changes its state.
require "server_helper"
require "digest"
require "securerandom"

class Http1Test < IntegrationTest
  TEST_TIMEOUT = 30

  def self.shared_server
    raise @boot_error if @boot_error

    @shared_server ||= begin
      server = PumaPlusServer.new(File.join(APPS, "probe.ru"), workers: 2, threads: 2)
      Minitest.after_run { server.stop }
      server.start
    end
  rescue StandardError => e
    @boot_error = e
    raise
  end

  def server
    self.class.shared_server
  end

  def connect
    server.connect
  end

  def test_keep_alive_serves_two_requests_on_one_connection
    connection = connect
    2.times do |i|
      connection.write(RawHttp.request("GET", "/sleep?id=keepalive-#{i}"))
      response = connection.read_response
      assert_equal 200, response.status
      assert_match(/\Akeepalive-#{i} \d+\n\z/, response.body)
      refute_equal "close", response["Connection"]&.downcase
    end
  ensure
    connection&.close
  end

  def test_ten_pipelined_requests_get_ten_responses_in_request_order
    connection = connect
    # Earlier requests sleep longer, so on 4 slots they finish out of order: the host must restore order.
    requests = (1..10).map { |i| RawHttp.request("GET", "/sleep?id=p#{i}&ms=#{(10 - i) * 30}") }
    connection.write(requests.join)
    ids = 10.times.map do
      response = connection.read_response
      assert_equal 200, response.status
      response.body.split.first
    end
    assert_equal (1..10).map { |i| "p#{i}" }, ids
  ensure
    connection&.close
  end

  def test_chunked_request_body_reaches_the_app_whole
    pieces = ["a", "b" * 100, SecureRandom.random_bytes(70_000), "", "tail"].reject(&:empty?)
    body = pieces.join.b
    chunked = pieces.map { |piece| format("%x\r\n", piece.bytesize).b + piece.b + "\r\n".b }.join + "0\r\n\r\n"
    connection = connect
    connection.write(RawHttp.request("POST", "/echo", { "Transfer-Encoding" => "chunked" }) + chunked)
    response = connection.read_response
    assert_equal 200, response.status
    assert_equal "POST len=#{body.bytesize} sha256=#{Digest::SHA256.hexdigest(body)}\n", response.body
  ensure
    connection&.close
  end

  def test_three_mib_upload_reaches_the_app_intact
    body = SecureRandom.random_bytes(3 * 1024 * 1024)
    connection = connect
    writer = connection.write_in_background(RawHttp.request("PUT", "/echo", { "Content-Type" => "application/octet-stream" }, body: body))
    response = connection.read_response(timeout: 20)
    writer.join
    assert_equal 200, response.status
    assert_equal "PUT len=#{body.bytesize} sha256=#{Digest::SHA256.hexdigest(body)}\n", response.body
  ensure
    connection&.close
  end

  def test_two_set_cookie_headers_stay_two_headers
    response = server.request("GET", "/cookies")
    assert_equal 200, response.status
    assert_equal ["a=1; Path=/", "b=2; Path=/"], response.all("Set-Cookie")
  end

  def test_head_response_has_content_length_and_no_body
    connection = connect
    connection.write(RawHttp.request("HEAD", "/"))
    head = connection.read_response(head: true)
    assert_equal 200, head.status
    assert_equal "6", head["Content-Length"]
    # Had the server sent the 6 body bytes anyway, they would now sit in front of the next status line.
    connection.write(RawHttp.request("GET", "/"))
    get = connection.read_response
    assert_equal 200, get.status
    assert_equal "hello\n", get.body
  ensure
    connection&.close
  end

  def test_expect_100_continue_gets_100_before_the_body_is_sent
    body = "hello world"
    connection = connect
    connection.write(RawHttp.request("POST", "/echo", { "Expect" => "100-continue", "Content-Length" => body.bytesize }))
    interim = connection.read_response(timeout: 5)
    assert_equal 100, interim.status, "the server must invite the body before the client sends it"
    connection.write(body)
    response = connection.read_response
    assert_equal 200, response.status
    assert_equal "POST len=11 sha256=#{Digest::SHA256.hexdigest(body)}\n", response.body
  ensure
    connection&.close
  end

  def test_malformed_request_line_gets_400_and_the_connection_closed_without_reaching_a_worker
    served = settled_requests_count
    connection = connect
    connection.write("this is not a request line\r\nHost: x\r\n\r\n")
    response = connection.read_response
    assert_equal 400, response.status
    assert connection.closed_by_server?(timeout: 5), "the connection must be closed after a 400"
    assert_equal served, settled_requests_count, "a rejected request must never reach a worker"
  ensure
    connection&.close
  end

  # The limits are puma's: a 12 KiB request-target, a 112 KiB header section.
  def test_oversize_uri_gets_414_and_the_connection_closed_without_reaching_a_worker
    served = settled_requests_count
    connection = connect
    connection.write_in_background(RawHttp.request("GET", "/" + "u" * 32 * 1024))
    response = connection.read_response
    assert_equal 414, response.status
    assert connection.closed_by_server?(timeout: 5), "the connection must be closed after a 414"
    assert_equal served, settled_requests_count, "a rejected request must never reach a worker"
  ensure
    connection&.close
  end

  def test_oversize_header_section_gets_431_and_the_connection_closed_without_reaching_a_worker
    served = settled_requests_count
    headers = (1..160).map { |i| ["X-Filler-#{i}", "f" * 1000] } # ~160 KiB
    connection = connect
    connection.write_in_background(RawHttp.request("GET", "/", headers))
    response = connection.read_response
    assert_equal 431, response.status
    assert connection.closed_by_server?(timeout: 5), "the connection must be closed after a 431"
    assert_equal served, settled_requests_count, "a rejected request must never reach a worker"
  ensure
    connection&.close
  end

  def test_connection_close_request_gets_its_response_then_close
    connection = connect
    connection.write(RawHttp.request("GET", "/", { "Connection" => "close" }))
    response = connection.read_response
    assert_equal 200, response.status
    assert_equal "hello\n", response.body
    assert connection.closed_by_server?(timeout: 5)
  ensure
    connection&.close
  end

  private

  # Requests the workers have completed (/stats), once the count has stopped moving: a response can reach
  # its client a moment before the host books the request as completed.
  def settled_requests_count
    previous = nil
    eventually(timeout: 5, interval: 0.1) do
      count = server.stats["worker_status"].sum { |worker| worker.dig("last_status", "requests_count") }
      settled = count == previous
      previous = count
      settled
    end
    previous
  end
end
