# Hostile WebTransport input against a real host (docs/WEBTRANSPORT.md, "Hostile input"): a raw client on
# Kwik (protocol-h3's test class WebTransportProbe, built by script/build) sends what a browser never would, on
# QUIC connections of its own (a datagram before its SETTINGS, streams naming a session that is not there, a
# capsule longer than any the host takes, one session more than a connection may hold, a stream naming an id
# that cannot be a CONNECT stream, a datagram without a whole quarter stream id), and each is answered with
# the frame and HTTP/3 or WebTransport code the doc names, while a well-behaved session on another connection
# keeps getting its echo after each one. The app (apps/webtransport_echo.ru) logs every event.
require "tls_helper"

class WebtransportHostileTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 120

  H3_ID_ERROR = "0x108"
  H3_MESSAGE_ERROR = "0x10e"
  H3_DATAGRAM_ERROR = "0x33"
  WEBTRANSPORT_BUFFERED_STREAM_REJECTED = "0x3994bd84"

  def test_each_hostile_input_closes_what_it_must_with_its_code_while_another_session_keeps_working
    server = start_server(app("webtransport_echo.ru"), workers: 1, threads: 2,
                          args: ["-b", "tcp://127.0.0.1:0", "-b", "ssl://127.0.0.1:0", "--bundles", "h1,h2,h3"])
    port = tls_port(server)
    capsule_close = nil
    lines, err, status = webtransport_probe("hostile", "https://127.0.0.1:#{port}/wt?token=let-me-in") do |line|
      next unless line == "good echo 3" # the oversized capsule was answered; its connection is still open

      early = server.output.scan(/webtransport (\d+) open/).flatten[1] # the second session held: the early one's
      capsule_close = eventually(timeout: 5) { server.output[/webtransport #{early} close (-?\d+)/, 1] }
    end
    message = with_log(server, "the probe (exit #{status.exitstatus}) printed:\n#{lines.join("\n")}\n#{err.lines.last(20).join}")
    assert status.success?, message
    assert_match(/\Agood session \d+ status 200\z/, lines.first, message)
    assert_includes lines, "early-datagram sent, then session 200",
                    "#{message}: after a datagram before SETTINGS its connection still serves"
    assert_includes lines, "unknown-session uni STOP_SENDING #{WEBTRANSPORT_BUFFERED_STREAM_REJECTED}", message
    assert_includes lines, "unknown-session bidi STOP_SENDING #{WEBTRANSPORT_BUFFERED_STREAM_REJECTED} " \
                           "RESET_STREAM #{WEBTRANSPORT_BUFFERED_STREAM_REJECTED}", message
    assert_includes lines, "oversized-capsule STOP_SENDING #{H3_MESSAGE_ERROR} RESET_STREAM #{H3_MESSAGE_ERROR}", message
    assert_equal "1006", capsule_close, with_log(server, "the app's close event for the oversized capsule's session")
    assert_includes lines, "too-many-sessions 200 x 16 then 429", message
    assert_includes lines, "not-a-connect-stream CONNECTION_CLOSE #{H3_ID_ERROR}", message
    assert_includes lines, "short-datagram CONNECTION_CLOSE #{H3_DATAGRAM_ERROR}", message
    assert_equal (0..6).map { |k| "good echo #{k}" }, lines.grep(/\Agood echo|\Agood lost/),
                 "#{message}: the well-behaved session is answered after every hostile input"
    large = lines.find { |line| line.start_with?("datagram ") }
    assert_equal "datagram echo:small, large:2000 none", large,
                 "#{message}: a small datagram is answered, a datagram of 2,000 bytes from the app never arrives"
    assert_equal "done", lines.last, message

    counts = eventually { (c = server.stats.dig("websockets", "webtransport")) && c["sessions"].zero? && c }
    assert counts, with_log(server, "every session ended once the probe left: #{server.stats['websockets']}")
    assert_equal 1, counts["sessions_refused"], "the 17th CONNECT: #{counts}"
    assert_operator counts["streams_refused"], :>=, 2, "the two streams naming no session: #{counts}"
    assert_operator counts["datagrams_dropped"], :>=, 1, "the datagram before SETTINGS: #{counts}"
    # Kwik's client may send a datagram twice (a probe after a lost acknowledgement repeats a packet's frames): each
    # "large:2000" the app saw is answered with a datagram the host drops.
    asked = server.output.scan(/webtransport \d+ message datagram "large:2000"/).size
    assert_operator asked, :>=, 1
    assert_equal asked, counts["datagrams_unsent"], "the app's 2,000-byte datagrams, dropped unsent: #{counts}"
  end
end
