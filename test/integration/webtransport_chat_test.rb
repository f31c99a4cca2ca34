# The WebTransport chat example (examples/webtransport_chat) in a real browser: headless Chromium loads its
# page over HTTP/1.1 and, through the DevTools protocol, joins one room twice with the page's own
# connectChat, once over WebTransport (HTTP/3, the certificate trusted by the hash the app serves) and once
# over the WebSocket fallback; each sees the other's line through the same broadcast, and the WebTransport
# client's leaving. script/setup installs chromium; without it the test fails under CI rather than skipping.
require "devtools_helper"
require "tls_helper"

class WebtransportChatTest < IntegrationTest
  include DevtoolsHelper
  include TlsHelper
  TEST_TIMEOUT = 120
  EXAMPLE = File.join(PumaPlusServer::ROOT, "examples/webtransport_chat/config.ru")

  SCENARIO = <<~JS
    (async () => {
      const wait = (check) => new Promise((resolve) => {
        const started = Date.now();
        const poll = () => (check() || Date.now() - started > 20000) ? resolve() : setTimeout(poll, 20);
        poll();
      });
      const alice = [], bob = [];
      const a = await connectChat("alice", "lobby", null, (l) => alice.push(l));
      const b = await connectChat("bob", "lobby", "websocket", (l) => bob.push(l));
      await wait(() => alice.includes("bob joined (websocket)"));
      await a.send("hi from webtransport");
      await b.send("hello from a websocket");
      await wait(() => alice.includes("bob: hello from a websocket") && bob.includes("alice: hi from webtransport"));
      a.close();
      await wait(() => bob.includes("alice left"));
      b.close();
      return JSON.stringify({ kinds: [a.kind, b.kind], alice, bob });
    })()
  JS

  def test_a_webtransport_client_and_a_websocket_client_chat_in_one_room_of_the_example
    cert, key = ec_certificate(temp_dir)
    server = start_server(EXAMPLE, threads: 2, env: { "CHAT_CERT" => cert },
                          args: ["-b", "tcp://127.0.0.1:0", "-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}",
                                 "--bundles", "h1,h2,h3"])
    url = "http://127.0.0.1:#{server.port}/?webtransport=https://127.0.0.1:#{tls_port(server)}"
    with_chromium_page(url, ready: "typeof connectChat === 'function'") do |page|
      result = JSON.parse(evaluate(page, SCENARIO, timeout: 60))
      message = with_log(server, "what the page saw: #{result}")
      assert_equal %w[webtransport websocket], result.fetch("kinds"), message
      assert_includes result.fetch("alice"), "alice joined (webtransport)", message
      assert_includes result.fetch("alice"), "bob: hello from a websocket", message
      assert_includes result.fetch("bob"), "alice: hi from webtransport", message
      assert_includes result.fetch("bob"), "alice left", message
    end
  end
end
