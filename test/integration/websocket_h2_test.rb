# WebSockets over HTTP/2 (RFC 8441 extended CONNECT, docs/WEBSOCKETS.md) from a real client: headless
# Chromium loads a page over h2 from the TLS listener (the development certificate trusted by its printed
# SPKI hash), then opens a WebSocket to the same origin, which it sends as an extended CONNECT on that h2
# connection because the host's SETTINGS enable it; the app's events report SERVER_PROTOCOL HTTP/2.
require "devtools_helper"
require "tls_helper"

class WebsocketH2Test < IntegrationTest
  include DevtoolsHelper
  include TlsHelper
  TEST_TIMEOUT = 120

  SCENARIO = <<~JS
    new Promise((resolve, reject) => {
      const socket = new WebSocket(`wss://${location.host}/ws?routing=flexible`);
      const got = [];
      socket.onopen = () => { socket.send("protocol"); socket.send("over h2"); };
      socket.onmessage = (m) => { got.push(m.data); if (got.length === 2) { socket.close(1000); resolve(JSON.stringify(got)); } };
      socket.onerror = () => reject(new Error("websocket error"));
      setTimeout(() => reject(new Error("no answer: " + JSON.stringify(got))), 15000);
    })
  JS

  def test_chromium_speaks_websocket_over_an_h2_extended_connect_the_host_holds
    server = start_server(app("websocket_held.ru"), workers: 1, threads: 2, env: { "PUMA_PLUS_HOME" => temp_dir },
                          args: ["-b", "ssl://127.0.0.1:0"])
    port = tls_port(server)
    url = "https://localhost:#{port}/"
    flags = ["--host-resolver-rules=MAP localhost 127.0.0.1", "--ignore-certificate-errors-spki-list=#{spki_hash(server)}"]
    with_chromium_page(url, flags: flags, ready: "document.body && document.body.innerText.startsWith('ok')") do |page|
      got = JSON.parse(evaluate(page, SCENARIO, timeout: 30))
      assert_equal "HTTP/2", got[0], with_log(server, "the WebSocket's events came over #{got[0]}")
      assert_match(/\Aover h2 \d+\z/, got[1])
    end
    assert eventually { server.stats.dig("queue", "busy_slots").zero? }
  end
end
