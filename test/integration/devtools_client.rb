# Drives a headless Chromium from a test through the DevTools protocol: starts the browser on a page with
# --remote-debugging-port=0, finds the page's debugging socket, and speaks just enough RFC 6455 (masked
# text frames out; text and continuation frames in, a close frame an error) to evaluate JavaScript in the
# page and take a screenshot. Loopback only; the browser runs in its own process group and is killed with it.
require "base64"
require "json"
require "net/http"
require "securerandom"
require "socket"
require "timeout"

class DevtoolsClient
  FLAGS = %w[--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
             --disable-sync --no-first-run --remote-debugging-port=0].freeze

  # Starts +chromium+ on +url+ with a fresh profile in +profile_dir+; waits at most +timeout+ s for the page.
  def initialize(chromium, url, profile_dir:, window: "1400,1100", timeout: 20)
    @stderr_path = File.join(profile_dir, "chromium.stderr")
    # TMPDIR: the directory Chromium makes in it for its singleton lock outlives a killed browser.
    @pid = Process.spawn({ "TMPDIR" => profile_dir }, chromium, *FLAGS,
                         "--user-data-dir=#{File.join(profile_dir, 'profile')}", "--window-size=#{window}", url,
                         in: File::NULL, out: File::NULL, err: @stderr_path, pgroup: true)
    deadline = monotonic + timeout
    port = nil
    until (port = File.read(@stderr_path)[%r{DevTools listening on ws://127\.0\.0\.1:(\d+)/}, 1])
      raise "chromium printed no DevTools address within #{timeout} s:\n#{stderr_tail}" if monotonic > deadline

      sleep 0.05
    end
    page = nil
    until page
      targets = JSON.parse(Net::HTTP.get(URI("http://127.0.0.1:#{port}/json/list")))
      page = targets.find { |t| t["type"] == "page" && t["url"].start_with?(url.sub(/\?.*/, "")) }
      raise "no page target for #{url}: #{targets}" if !page && monotonic > deadline

      sleep 0.05 unless page
    end
    connect(URI(page["webSocketDebuggerUrl"]))
    @ids = 0
  end

  # The value of +expression+ evaluated in the page (JSON-able values only).
  def evaluate(expression)
    result = call("Runtime.evaluate", { expression: expression, returnByValue: true })
    raise "page threw: #{result['exceptionDetails']}" if result["exceptionDetails"]

    result.dig("result", "value")
  end

  # The page as PNG bytes.
  def screenshot
    Base64.decode64(call("Page.captureScreenshot", { format: "png" })["data"])
  end

  def close
    @socket&.close
    Process.kill("KILL", -@pid)
    Process.wait(@pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end

  def stderr_tail
    File.exist?(@stderr_path) ? File.readlines(@stderr_path).last(10).join : ""
  end

  private

  def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def connect(uri)
    @socket = TCPSocket.new(uri.host, uri.port)
    key = Base64.strict_encode64(SecureRandom.random_bytes(16))
    @socket.write("GET #{uri.path} HTTP/1.1\r\nHost: #{uri.host}:#{uri.port}\r\nUpgrade: websocket\r\n" \
                  "Connection: Upgrade\r\nSec-WebSocket-Key: #{key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = +""
    head << @socket.readpartial(1) until head.end_with?("\r\n\r\n")
    raise "DevTools refused the WebSocket: #{head}" unless head.start_with?("HTTP/1.1 101")
  end

  # Sends one command and returns its result, skipping the events that arrive before it.
  def call(method, params = {}, timeout: 20)
    id = (@ids += 1)
    send_text(JSON.generate(id: id, method: method, params: params))
    Timeout.timeout(timeout, RuntimeError, "no answer to #{method} within #{timeout} s") do
      loop do
        message = JSON.parse(read_message)
        next unless message["id"] == id
        raise "#{method} failed: #{message['error']}" if message["error"]

        return message["result"]
      end
    end
  end

  def send_text(text)
    payload = text.b
    mask = SecureRandom.random_bytes(4)
    head = [0x81].pack("C")
    head << if payload.bytesize < 126
              [0x80 | payload.bytesize].pack("C")
            elsif payload.bytesize < 65_536
              [0x80 | 126, payload.bytesize].pack("Cn")
            else
              [0x80 | 127, payload.bytesize].pack("CQ>")
            end
    masked = payload.bytes.each_with_index.map { |b, i| b ^ mask.getbyte(i % 4) }.pack("C*")
    @socket.write(head + mask + masked)
  end

  # One whole message: frames until FIN (DevTools sends no pings to its clients).
  def read_message
    message = +""
    loop do
      first, second = @socket.read(2).unpack("CC")
      length = second & 0x7f
      length = @socket.read(2).unpack1("n") if length == 126
      length = @socket.read(8).unpack1("Q>") if length == 127
      payload = length.zero? ? "" : @socket.read(length)
      raise "DevTools closed the WebSocket" if first & 0x0f == 0x8

      message << payload
      return message.force_encoding(Encoding::UTF_8) if first & 0x80 != 0
    end
  end
end
