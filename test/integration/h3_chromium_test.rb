# A real browser over HTTP/3: Debian's Chromium, headless, forced onto QUIC for the server's origin and
# told to trust its self-signed development certificate by the SPKI hash the host prints, loads a page
# whose text is the SERVER_PROTOCOL the app saw. script/setup installs chromium; without it the test fails
# under CI rather than skipping.
require "server_helper"
require "tls_helper"

class H3ChromiumTest < IntegrationTest
  include TlsHelper
  TEST_TIMEOUT = 120

  def test_headless_chromium_loads_a_page_over_http3_trusting_the_printed_spki_hash
    chromium = IntegrationTest.find_executable("chromium") || skip_or_fail("chromium is not installed (script/setup installs it)")
    server = start_server(app("protocol_page.ru"), threads: 1, env: { "PUMA_PLUS_HOME" => temp_dir },
                          args: ["-b", "ssl://127.0.0.1:0", "--bundles", "h1,h2,h3"])
    port = tls_port(server)
    profile = temp_dir
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=#{profile}",
               "--enable-quic", "--origin-to-force-quic-on=localhost:#{port}",
               # The listener is bound to 127.0.0.1; Chromium would try ::1 first for "localhost".
               "--host-resolver-rules=MAP localhost 127.0.0.1",
               "--ignore-certificate-errors-spki-list=#{spki_hash(server)}",
               "--dump-dom", "https://localhost:#{port}/"]
    out, err, status = Open3.capture3("timeout", "60", *command)
    assert status.success?, "chromium failed (#{status.inspect}): #{err.lines.last(5).join}"
    assert_match(%r{<p id="protocol">HTTP/3</p>}, out,
                 with_log(server, "Chromium did not load the page over HTTP/3:\n#{out[0, 2000]}"))
  end
end
