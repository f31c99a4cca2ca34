# Headless Chromium driven through its DevTools protocol, for the tests that need a real browser to run a
# script in a page and hand back what it saw (the WebSocket tests): launches Chromium on a URL, finds the
# page, and evaluates expressions in it over a WebSocket (web_socket_client.rb).
require "server_helper"
require "web_socket_client"

module DevtoolsHelper
  # Runs headless Chromium on +url+ with +flags+, yields the page's DevTools WebSocket URL once the page's
  # document is the one +ready+ (a JavaScript expression) accepts, and kills the browser afterwards.
  def with_chromium_page(url, flags: [], ready: "document.readyState === 'complete'")
    chromium = IntegrationTest.find_executable("chromium") || skip_or_fail("chromium is not installed (script/setup installs it)")
    stderr_path = File.join(temp_dir, "chromium.err")
    # TMPDIR: the directory Chromium makes in it for its singleton lock outlives a killed browser.
    browser = Process.spawn({ "TMPDIR" => temp_dir }, chromium, "--headless", "--no-sandbox", "--disable-gpu",
                            "--user-data-dir=#{temp_dir}", "--remote-debugging-port=0", *flags, url, pgroup: true,
                            in: File::NULL, out: File::NULL, err: stderr_path)
    devtools = eventually(timeout: 30) { File.read(stderr_path)[%r{DevTools listening on ws://127\.0\.0\.1:(\d+)/}, 1] }
    assert devtools, "Chromium printed no DevTools address:\n#{File.read(stderr_path)}"
    target = eventually(timeout: 30) do
      JSON.parse(Net::HTTP.get(URI("http://127.0.0.1:#{devtools}/json/list")))
          .find { |t| t["type"] == "page" && t["url"] == url && t["webSocketDebuggerUrl"] }
    end
    assert target, "no page target for #{url}"
    page = target["webSocketDebuggerUrl"]
    # The target exists before its document is the page's: wait until the page's own document answers.
    assert_equal "ready", evaluate(page, "(#{ready}) ? 'ready' : ''", until_value: "ready")
    yield page
  ensure
    if browser
      Process.kill("KILL", -browser)
      Process.wait(browser)
    end
  end

  # Runtime.evaluate of +expression+ (a promise is awaited) over the page's DevTools WebSocket at +url+;
  # with +until_value+, repeated until it returns that or +timeout+ passes. Returns the value.
  def evaluate(url, expression, timeout: 20, until_value: nil)
    uri = URI(url)
    client = WebSocketClient.connect(uri.host, uri.port, uri.path)
    deadline = monotonic + timeout
    id = 0
    loop do
      id += 1
      client.send_text(JSON.generate(id: id, method: "Runtime.evaluate",
                                     params: { expression: expression, awaitPromise: true, returnByValue: true }))
      value = nil
      loop do
        _opcode, payload = client.read_message(timeout: [deadline - monotonic, 1].max)
        reply = JSON.parse(payload)
        next unless reply["id"] == id

        flunk "the page's script failed: #{reply}" if reply["error"] || reply.dig("result", "exceptionDetails")
        value = reply.dig("result", "result", "value")
        break
      end
      return value if until_value.nil? || value == until_value || monotonic > deadline

      sleep 0.1
    end
  ensure
    client&.socket&.close
  end
end
