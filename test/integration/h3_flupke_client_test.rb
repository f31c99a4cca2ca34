# HTTP/3 with a real client (Flupke's, a java.net.http.HttpClient over Kwik's QUIC): served on the UDP
# port of the TLS listener with RSA and EC certificates, advertised by Alt-Svc on HTTP/1.1 and h2 over TLS,
# streaming each event as it is yielded; and absent, with no UDP socket, when the h3 bundle is not loaded.
require "digest"
require "socket"
require "server_helper"
require "tls_helper"

class H3FlupkeClientTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 120

  def test_h3_answers_with_an_rsa_certificate_takes_a_spooled_upload_and_tls_responses_advertise_it
    cert, key = rsa_certificate(temp_dir)
    server = start_server(app("probe.ru"), threads: 2,
                          args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}", "--bundles", "h1,h2,h3"])
    tls = tls_port(server)
    assert_match(%r{listening on h3://127\.0\.0\.1:#{tls}$}, server.output)
    code, body, = h3_get("https://localhost:#{tls}/")
    assert_equal [200, "hello\n"], [code, body]
    ["--http1.1", "--http2"].each do |version|
      out, err, status = curl("-k", "-i", version, "https://127.0.0.1:#{tls}/")
      assert status.success?, err
      assert_match(/^alt-svc: h3=":#{tls}"; ma=86400\r?$/i, out, "#{version} over TLS must advertise HTTP/3")
    end
    out, = curl("-i", "--http1.1", "http://127.0.0.1:#{server.port}/")
    refute_match(/^alt-svc/i, out, "cleartext responses do not advertise HTTP/3")

    # Past the 112 KiB held in memory (the host spools it before it is runnable) and past Flupke's own
    # 10 MiB default cap on DATA, which the host lifts: http_content_length_limit (none here) decides.
    # The upload is not held back by the server's flow-control window: with Kwik's default 5 KiB window
    # the client was blocked 1,300-2,200 times per upload, and now and then missed the window's update and
    # stalled until the idle timeout closed the connection (H3Endpoints, STREAM_RECEIVE_WINDOW).
    size = 10 * 1024 * 1024 + 7
    out, err, status = h3_probe("post", "https://localhost:#{tls}/echo", size.to_s)
    assert status.success?, err
    blocked = Integer(out[/^blocked (\d+)$/, 1])
    assert_operator blocked, :<=, 10, "the client waited on the server's flow-control window #{blocked} times"
    expected = Digest::SHA256.hexdigest((0...size).map { |i| i % 251 }.pack("C*"))
    assert_equal "POST len=#{size} sha256=#{expected}", out.lines.last.chomp
  end

  def test_h3_answers_with_the_ec_development_certificate_and_streams_events_as_they_are_yielded
    home = temp_dir
    server = start_server(app("stream.ru"), threads: 2, env: { "PUMA_PLUS_HOME" => home },
                          args: ["-b", "ssl://127.0.0.1:0", "--bundles", "h1,h2,h3"])
    assert File.file?(File.join(home, "tls/localhost.crt")), "development certificate not generated"
    assert_match(/\(EC key\)/, server.output)
    url = "https://localhost:#{tls_port(server)}/?n=10&ms=100"
    # Read by the probe through the same InputStream path it times: a cold one delays the first event
    # (docs/benchmarks/NOTEBOOK.md, "HTTP/3").
    warm_up = "https://localhost:#{tls_port(server)}/?n=10&ms=0"
    seen = []
    3.times do
      out, err, status = h3_probe("stream", url, warm_up)
      assert status.success?, "#{err}\n#{out}"
      reads = out.lines.grep(/\A\d+ /).map { |l| l.split(" ", 2) }.map { |t, data| [Integer(t) / 1e9, data.chomp.gsub("\\n", "\n")] }
      assert_equal (0...10).map { |i| "event #{i}\n" }.join, reads.map(&:last).join
      times = []
      reads.each { |t, data| data.count("\n").times { times << t } }
      assert_equal 10, times.uniq.size, "events were batched: #{reads.map(&:last).inspect}"
      gaps = times.each_cons(2).map { |a, b| ((b - a) * 1000).round(1) }
      diag("h3 gaps ms #{gaps.inspect}")
      return if gaps.all? { |g| (g - 100).abs <= 30 }

      seen << gaps
    end
    flunk("h3: no attempt kept every gap within 100 ± 30 ms: #{seen.inspect}")
  end

  # Three clients on one slot, four downloads each, the server's whole tree on one core (as the benchmarks run
  # it): without SendRearm, Kwik's lost wake-up stopped a download after 2,473 bytes until the idle timeout in
  # 2 runs of 2 here.
  def test_concurrent_five_mebibyte_streamed_responses_arrive_whole_over_h3
    cert, key = rsa_certificate(temp_dir)
    server = start_server(command: ["taskset", "-c", "0", PumaPlusServer::EXE, "-b", "tcp://127.0.0.1:0",
                                    "--control-url", "tcp://127.0.0.1:0", "-t", "1:1",
                                    "-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}", "--bundles", "h1,h2,h3",
                                    app("big_body.ru")])
    url = "https://localhost:#{tls_port(server)}/?chunks=80"
    expected = (0...80).map { |i| ("a".ord + (i % 26)).chr * 65_536 }.join
    3.times.map { Thread.new { 4.times.map { h3_get(url) } } }.flat_map(&:value).each do |code, body|
      assert_equal 200, code
      assert_equal expected.bytesize, body.bytesize, "bytes lost on the way"
      assert body == expected, "bytes arrived out of order or corrupted"
    end
  end

  def test_a_response_that_fails_after_its_head_is_reset_over_h3_and_the_server_serves_on
    cert, key = rsa_certificate(temp_dir)
    server = start_server(app("big_body.ru"), threads: 1,
                          args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}", "--bundles", "h1,h2,h3"])
    base = "https://localhost:#{tls_port(server)}/"
    out, err, status = h3_probe("get", "#{base}?chunks=8&fail_after=2")
    refute status.success?, "a body cut by the app must not read as a whole response: #{out[0, 200]}"
    # Kwik's client names a RESET_STREAM so (H3_INTERNAL_ERROR, as h2's RST_STREAM). Before, the stream was left
    # to Flupke, and its client failed the whole connection with an HTTP/3 connection error (EOFException).
    assert_match(/Stream reset by peer/, err)
    code, body, = h3_get("#{base}?chunks=2")
    assert_equal [200, 2 * 65_536], [code, body.bytesize]
  end

  def test_without_the_h3_bundle_there_is_no_quic_listener_and_no_alt_svc
    cert, key = rsa_certificate(temp_dir)
    server = start_server(app("probe.ru"), threads: 1, args: ["-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}"])
    tls = tls_port(server)
    refute_match(%r{listening on h3://}, server.output)
    out, = curl("-k", "-i", "--http2", "https://127.0.0.1:#{tls}/")
    assert_match(%r{\AHTTP/2 200}, out)
    refute_match(/^alt-svc/i, out)
    udp = UDPSocket.new
    udp.bind("127.0.0.1", tls) # raises EADDRINUSE if anything listens there
    udp.close
  end
end
