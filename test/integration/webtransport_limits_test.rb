# WebTransport's own limits against a real host (docs/WEBTRANSPORT.md, "Limits"): a config file sets
# webtransport_sessions_per_connection 2, webtransport_max_sessions 3 and webtransport_max_message 1000 (the
# WebSocket limits stay at their defaults, far above), and protocol-h3's raw client on Kwik (WebTransportProbe,
# built by script/build) sees the third CONNECT on one connection answered 429, a session on a second connection
# held (the third in all) and that connection's next CONNECT answered 503, a stream of 1,000 bytes echoed and one
# of 1,001 stopped with H3_EXCESSIVE_LOAD and its session closed with 1009. The app (apps/webtransport_echo.ru)
# logs every event.
require "tls_helper"

class WebtransportLimitsTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 90

  H3_EXCESSIVE_LOAD = "0x107"

  def test_the_webtransport_settings_bound_sessions_per_connection_and_in_all_and_the_bytes_of_a_stream
    config = File.join(temp_dir, "puma-plus.rb")
    File.write(config, "webtransport_sessions_per_connection 2\nwebtransport_max_sessions 3\n" \
                       "webtransport_max_message 1000\n")
    server = start_server(app("webtransport_echo.ru"), workers: 1, threads: 2, config: config,
                          args: ["-b", "tcp://127.0.0.1:0", "-b", "ssl://127.0.0.1:0", "--bundles", "h1,h2,h3"])
    lines, err, status = webtransport_probe("limits", "https://127.0.0.1:#{tls_port(server)}/wt?token=let-me-in",
                                            "1000", timeout: 60)
    message = with_log(server, "the probe (exit #{status.exitstatus}) printed:\n#{lines.join("\n")}\n#{err.lines.last(20).join}")
    assert status.success?, message
    assert_equal ["per-connection 200 x 2 then 429",
                  "session 200, a stream of 1000 bytes echoed with 1005", # "echo:" and the 1,000 bytes
                  "one more session 503",
                  "too-long STOP_SENDING #{H3_EXCESSIVE_LOAD} close 1009",
                  "done"], lines, message
    assert eventually(timeout: 5) { server.output =~ /webtransport \d+ close 1009/ },
           with_log(server, "the app's close event for the session of the too-long stream")
    assert_includes server.output, "webtransport upgrade /wt?token=let-me-in HTTP/3"
    assert_equal 3, server.output.scan(/webtransport upgrade /).size,
                 with_log(server, "neither the 429 nor the 503 CONNECT reached the app")

    counts = eventually { (c = server.stats.dig("websockets", "webtransport")) && c["sessions"].zero? && c }
    assert counts, with_log(server, "every session ended once the probe left: #{server.stats['websockets']}")
    assert_equal 1, counts["sessions_refused"], "the third CONNECT on one connection: #{counts}"
    assert_equal 1, counts["streams_refused"], "the stream of 1,001 bytes: #{counts}"
  end
end
