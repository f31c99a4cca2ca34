# A real browser on WebSockets the host holds (docs/WEBSOCKETS.md): Debian's Chromium, headless, loads the
# chat example's page; through the DevTools protocol the test joins the chat with the page's own form and
# opens a second WebSocket beside it, exchanges messages (permessage-deflate, which Chromium offers),
# broadcasts from an ordinary POST, and reads what each socket received from the page (its list of lines and a script variable). script/setup installs
# chromium; without it the test fails under CI rather than skipping.
require "devtools_helper"

class WebsocketChromiumTest < IntegrationTest
  include DevtoolsHelper
  TEST_TIMEOUT = 120
  CHAT = File.join(PumaPlusServer::ROOT, "examples/chat/config.ru")

  # Runs in the page: joins as alice through the form, opens bob's socket from script, sends as both, asks
  # /whoami, posts an announcement, and resolves once every expected line arrived (or 20 s passed) with
  # both sockets' lines.
  SCENARIO = <<~JS
    (async () => {
      const wait = (check) => new Promise((resolve) => {
        const started = Date.now();
        const poll = () => (check() || Date.now() - started > 20000) ? resolve() : setTimeout(poll, 20);
        poll();
      });
      const lines = () => [...document.querySelectorAll("#log li")].map((li) => li.textContent);
      document.getElementById("name").value = "alice";
      document.getElementById("room").value = "lobby";
      document.querySelector("#join button").click();
      await wait(() => lines().includes("alice joined"));
      const bob = [];
      const socket = new WebSocket(`ws://${location.host}/chat?room=lobby&name=bob`);
      socket.onmessage = (m) => bob.push(m.data);
      await wait(() => bob.includes("bob joined") && lines().includes("bob joined"));
      document.getElementById("text").value = "hello from the form";
      document.querySelector("#say button").click();
      socket.send("hi alice");
      socket.send("/whoami");
      await fetch("/announce?room=lobby", { method: "POST", body: "tea is ready" });
      await wait(() => bob.includes("announcement: tea is ready") && lines().includes("announcement: tea is ready")
                       && bob.some((l) => l.startsWith("you are bob")) && lines().includes("bob: hi alice")
                       && bob.includes("alice: hello from the form"));
      socket.close(1000);
      await wait(() => lines().includes("bob left"));
      return JSON.stringify({ alice: lines(), bob: bob, extensions: socket.extensions });
    })()
  JS

  def test_headless_chromium_chats_over_held_websockets_and_receives_broadcasts
    server = start_server(CHAT, workers: 2, threads: 2)
    with_chromium_page("http://127.0.0.1:#{server.port}/", ready: "document.getElementById('join')") do |page|
      lines = JSON.parse(evaluate(page, SCENARIO, timeout: 40))
      alice = lines.fetch("alice")
      bob = lines.fetch("bob")
      message = with_log(server, "what the page received: #{lines}")
      ["alice joined", "bob joined", "alice: hello from the form", "bob: hi alice",
       "announcement: tea is ready", "bob left"].each { |line| assert_includes alice, line, message }
      ["bob joined", "alice: hello from the form", "bob: hi alice", "announcement: tea is ready"]
        .each { |line| assert_includes bob, line, message }
      assert bob.any? { |l| l.match?(/\Ayou are bob \(connection \d+, worker pid \d+\)\z/) }, message
      assert_match(/\Apermessage-deflate/, lines.fetch("extensions"), "Chromium's messages are compressed (RFC 7692)")
      refute alice.any? { |l| l.start_with?("you are") }, "/whoami answers its sender alone: #{alice}"
      assert_operator alice.index("bob: hi alice"), :<, alice.index("bob left"), "a connection's events stay in order"
      assert_equal 0, eventually { server.stats.dig("queue", "busy_slots").zero? ? 0 : nil }, "no slot is held between messages"
    end
  end
end
