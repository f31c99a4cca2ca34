# Strict HTTP/1.x parsing end to end (the parse step of accept → parse → queue → ...): each violation of
# RFC 9112 sent as raw bytes on HTTP/1.0 and on HTTP/1.1 to the real host with a real Ruby worker is answered
# with its status, the connection closes, and the app never sees it nor the request pipelined behind it. The
# app logs every request it is called with (apps/request_log.ru); one server (1 worker x 1 thread) is shared.
require "server_helper"

class Http1StrictTest < IntegrationTest
  TEST_TIMEOUT = 120

  H = "Host: a.example\r\n".freeze
  BOTH = %w[HTTP/1.0 HTTP/1.1].freeze
  V11 = %w[HTTP/1.1].freeze

  # [name with its RFC section, request bytes with V for the version, status, versions]. The target is
  # /bad unless the target is the violation; a valid GET /smuggled follows every case in the same write.
  CASES = [
    ["RFC 9112 §6.3: two Content-Length fields with different values", "POST /bad V\r\n#{H}Content-Length: 1\r\nContent-Length: 30\r\n\r\nX", 400, BOTH],
    ["RFC 9112 §6.3: two equal Content-Length fields", "POST /bad V\r\n#{H}Content-Length: 1\r\nContent-Length: 1\r\n\r\nX", 400, BOTH],
    ["RFC 9112 §6.3: a Content-Length list", "POST /bad V\r\n#{H}Content-Length: 1, 30\r\n\r\nX", 400, BOTH],
    ["RFC 9110 §8.6: Content-Length with a sign", "POST /bad V\r\n#{H}Content-Length: +1\r\n\r\nX", 400, BOTH],
    ["RFC 9110 §8.6: Content-Length with letters", "POST /bad V\r\n#{H}Content-Length: 1x\r\n\r\nX", 400, BOTH],
    ["RFC 9110 §8.6: Content-Length that overflows", "POST /bad V\r\n#{H}Content-Length: 18446744073709551617\r\n\r\n", 400, BOTH],
    ["RFC 9112 §6.1: Transfer-Encoding on HTTP/1.0", "POST /bad V\r\n#{H}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, %w[HTTP/1.0]],
    ["RFC 9112 §6.3: Transfer-Encoding beside Content-Length", "POST /bad V\r\n#{H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, BOTH],
    ["RFC 9112 §6.3: final coding not chunked", "POST /bad V\r\n#{H}Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", 400, V11],
    ["RFC 9112 §6.3: Transfer-Encoding without chunked", "POST /bad V\r\n#{H}Transfer-Encoding: gzip\r\n\r\n", 400, V11],
    ["RFC 9112 §6.1: an unknown transfer coding is 501", "POST /bad V\r\n#{H}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, V11],
    ["RFC 9112 §7.1: chunk data not followed by CRLF", "POST /bad V\r\n#{H}Transfer-Encoding: chunked\r\n\r\n1\r\nXYZ0\r\n\r\n", 400, V11],
    ["RFC 9112 §3.2: HTTP/1.1 without Host", "GET /bad V\r\n\r\n", 400, V11],
    ["RFC 9112 §3.2: two Host fields", "GET /bad V\r\nHost: a.example\r\nHost: b.example\r\n\r\n", 400, BOTH],
    ["RFC 9112 §3.2: Host with a path", "GET /bad V\r\nHost: a.example/x\r\n\r\n", 400, BOTH],
    ["RFC 9112 §3.2: Host with userinfo", "GET /bad V\r\nHost: u@a.example\r\n\r\n", 400, BOTH],
    ["RFC 9112 §3.2: Host with a bad port", "GET /bad V\r\nHost: a.example:99999\r\n\r\n", 400, BOTH],
    ["RFC 9112 §3: two SPs in the request line", "GET  /bad V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §3: HTAB in the request line", "GET\t/bad V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §3.1: method that is not a token", "G@T /bad V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §2.3: garbage version", "GET /bad HTTP/1.x\r\n#{H}\r\n", 400, V11],
    ["RFC 9110 §15.6.6: HTTP/1.2 is 505", "GET /bad HTTP/1.2\r\n#{H}\r\n", 505, V11],
    ["RFC 9112 §3: request target over 12 KiB is 414", "GET /#{'a' * 12_289} V\r\n#{H}\r\n", 414, BOTH],
    ["RFC 9112 §3.2: NUL in the target", "GET /a\0b V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §3.2: a control byte in the target", "GET /a\x1Bb V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §3.2: DEL in the target", "GET /a\x7Fb V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §3.2: a byte above 0x7F in the target", "GET /caf\xC3\xA9 V\r\n#{H}\r\n".b, 400, BOTH],
    ["RFC 9112 §3.2: a fragment in the target", "GET /bad#x V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §3.2.3: authority-form", "CONNECT a.example:443 V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9110 §4.2.4: absolute-form with userinfo", "GET http://u@a.example/bad V\r\n#{H}\r\n", 400, BOTH],
    ["RFC 9112 §2.2: bare LF line ends", "GET /bad V\n#{H.sub("\r\n", "\n")}\n", 400, BOTH],
    ["RFC 9112 §2.2: bare CR in a field value", "GET /bad V\r\n#{H}X: a\rb\r\n\r\n", 400, BOTH],
    ["RFC 9112 §5.2: obs-fold", "GET /bad V\r\n#{H}X: a\r\n b\r\n\r\n", 400, BOTH],
    ["RFC 9112 §2.2: whitespace before the first field", "GET /bad V\r\n #{H}\r\n", 400, BOTH],
    ["RFC 9112 §5.1: whitespace between field name and colon", "GET /bad V\r\n#{H}X-A : b\r\n\r\n", 400, BOTH],
    ["RFC 9110 §5.1: field name that is not a token", "GET /bad V\r\n#{H}X[a]: b\r\n\r\n", 400, BOTH],
    ["RFC 9110 §5.5: NUL in a field value", "GET /bad V\r\n#{H}X: a\0b\r\n\r\n", 400, BOTH],
    ["RFC 6585 §5: header section over 112 KiB is 431", "GET /bad V\r\n#{H}#{"X-Pad: #{'p' * 1000}\r\n" * 115}\r\n", 431, BOTH]
  ].freeze

  def self.shared_server
    raise @boot_error if @boot_error

    @shared_server ||= begin
      @log = File.join(Dir.mktmpdir("puma-plus-strict-"), "requests.log")
      File.write(@log, "")
      server = PumaPlusServer.new(File.join(APPS, "request_log.ru"), workers: 1, threads: 1, env: { "REQUEST_LOG" => @log })
      Minitest.after_run do
        server.stop
        FileUtils.rm_rf(File.dirname(@log))
      end
      server.start
    end
  rescue StandardError => e
    @boot_error = e
    raise
  end

  class << self
    attr_reader :log
  end

  def server
    self.class.shared_server
  end

  # Paths the app logged, besides the valid /ok-* requests the tests send on purpose.
  def unexpected_app_calls
    File.readlines(self.class.log, chomp: true).reject { |line| line.start_with?("GET /ok-") }
  end

  def ok(path, host: "a.example")
    connection = server.connect
    connection.write("GET #{path} HTTP/1.1\r\nHost: #{host}\r\nConnection: close\r\n\r\n")
    connection.read_response
  ensure
    connection&.close
  end

  def test_every_violation_is_refused_on_http10_and_http11_with_its_status_a_close_and_no_app_call
    server
    checked = 0
    CASES.each do |name, template, status, versions|
      versions.each do |version|
        request = template.b.gsub(" V\r\n".b, " #{version}\r\n".b).gsub(" V\n".b, " #{version}\n".b)
        label = "#{name} [#{version}]"
        connection = server.connect
        connection.write(request + "GET /smuggled HTTP/1.1\r\n#{H}\r\n".b)
        response = connection.read_response(timeout: 10)
        assert_equal status, response.status, label
        assert_equal "close", response["Connection"]&.downcase, label
        # Raises on any byte after the one response: the request pipelined behind was never parsed.
        assert connection.closed_by_server?(timeout: 5), "#{label}: the connection stays open after the refusal"
        assert_empty unexpected_app_calls, "#{label}: the app was called"
        checked += 1
      ensure
        connection&.close
      end
    end
    assert_operator checked, :>=, 60
    # The worker is still there and serving: the refusals never involved it.
    assert_equal 200, ok("/ok-after-violations").status
    assert_empty unexpected_app_calls
  end

  def test_absolute_form_authority_wins_over_host_for_server_name_server_port_and_http_host
    connection = server.connect
    connection.write("GET http://a.example:8080/ok-absolute?q=1 HTTP/1.1\r\nHost: other.example\r\n\r\n")
    response = connection.read_response
    assert_equal 200, response.status
    assert_equal({ "PATH_INFO" => "/ok-absolute", "QUERY_STRING" => "q=1", "SERVER_NAME" => "a.example",
                   "SERVER_PORT" => "8080", "HTTP_HOST" => "a.example:8080" }, JSON.parse(response.body))
  ensure
    connection&.close
  end

  def test_host_names_the_server_and_http_host_alike
    env = JSON.parse(ok("/ok-host", host: "[::1]:9000").body)
    assert_equal ["[::1]", "9000", "[::1]:9000"], env.values_at("SERVER_NAME", "SERVER_PORT", "HTTP_HOST")
  end

  def test_http10_without_host_is_served_and_named_by_the_local_address
    connection = server.connect
    connection.write("GET /ok-http10 HTTP/1.0\r\n\r\n")
    response = connection.read_response
    assert_equal 200, response.status
    env = JSON.parse(response.body)
    assert_equal ["127.0.0.1", server.port.to_s, nil], env.values_at("SERVER_NAME", "SERVER_PORT", "HTTP_HOST")
  ensure
    connection&.close
  end
end
