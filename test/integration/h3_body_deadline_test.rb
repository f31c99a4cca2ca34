# The request-body progress deadline over HTTP/3 (first_data_timeout 2 here), with real clients. Headless
# Chromium, forced onto QUIC, streams a request body (fetch with a ReadableStream, duplex 'half') that stops
# after a spooled 208 KiB: the host gives up on it on time, holding no slot meanwhile, never showing it to
# the app, closing its spool file, answering 408 and keeping the QUIC connection, whose next request is
# served. Chromium reads no response before its body is sent, so the 408's arrival is timed with a raw
# request stream on a Flupke/Kwik client connection (H3Probe stall), which reads it while its body is
# stalled. A body that trickles a byte a second, longer than the timeout in all, is not cut off.
require "digest"
require "json"
require "server_helper"
require "tls_helper"
require "devtools_helper"

class H3BodyDeadlineTest < IntegrationTest
  include TlsHelper
  include DevtoolsHelper
  TEST_TIMEOUT = 120
  FIRST_DATA_TIMEOUT = 2
  CHUNK = 16 * 1024
  STALL_AFTER_CHUNKS = 13 # 208 KiB: past the 112 KiB a body may hold in memory, so it is spooled to a file

  def setup
    config = File.join(temp_dir, "deadline.rb")
    File.write(config, "first_data_timeout #{FIRST_DATA_TIMEOUT}\n")
    @log = File.join(temp_dir, "app.log")
    @server = start_server(app("bodies.ru"), workers: 1, threads: 1, config: config,
                           env: { "PUMA_PLUS_HOME" => temp_dir },
                           args: ["-b", "ssl://127.0.0.1:0", "--bundles", "h1,h2,h3"])
    @port = tls_port(@server)
    @origin = "https://localhost:#{@port}"
  end

  def test_a_stalled_h3_upload_is_given_up_at_first_data_timeout_holding_no_slot_and_the_connection_serves_on
    with_h3_page do |page|
      before = page.fetch("/other")
      assert_equal [200, "ok\n", "h3"], before.values_at("status", "text", "protocol"), "a first request over h3"

      # The body stops after STALL_AFTER_CHUNKS chunks; it ends only when the test calls window.upload.end().
      page.start(<<~JS)
        window.upload = { sent: 0 };
        const chunk = new Uint8Array(#{CHUNK}).fill(120);
        const body = new ReadableStream({
          pull(controller) {
            if (window.upload.sent < #{STALL_AFTER_CHUNKS * CHUNK}) {
              controller.enqueue(chunk);
              window.upload.sent += chunk.length;
              return;
            }
            window.upload.stalled = true;
            return new Promise(resolve => { window.upload.end = () => { controller.close(); resolve(); }; });
          }
        });
        fetch("/upload?log=#{@log}", { method: "POST", body, duplex: "half" })
          .then(async r => { window.upload.status = r.status; window.upload.text = await r.text(); })
          .catch(e => { window.upload.error = String(e); })
          .finally(() => { window.upload.settled = true; });
      JS
      spooled = eventually(timeout: 10) { page.value("window.upload.stalled === true") && spool_files == 1 }
      assert spooled, with_log(@server, "the host holds the stalled body's spool file (#{spool_files} open)")
      stalled = monotonic
      busy = []
      until spool_files.zero? || monotonic > stalled + FIRST_DATA_TIMEOUT + 5
        busy << @server.stats.fetch("queue").fetch("busy_slots")
        sleep 0.05
      end
      waited = monotonic - stalled
      diag("h3: the stalled body's spool file closed #{waited.round(2)} s after its last byte (#{busy.size} samples)")
      assert_equal 0, spool_files, with_log(@server, "the stalled body was never given up")
      assert_in_delta FIRST_DATA_TIMEOUT, waited, 1.0, "given up #{waited.round(2)} s after the last body byte"
      assert busy.any? && busy.all?(&:zero?), "no slot was busy while the body stalled: #{busy.inspect}"

      # Chromium reads no response to a half-duplex upload before its body is sent: the 408 waits in its
      # receive buffer until the page ends the body. Without the deadline that end would complete the body
      # and the app would answer 200.
      page.start("window.upload.end()")
      assert eventually(timeout: 10) { page.value("window.upload.settled === true") }, "the upload settles"
      result = page.value("window.upload")
      assert_equal [408, "408\n"], result.values_at("status", "text"), with_log(@server, result.inspect)
      refute File.exist?(@log), "the app saw the stalled request: #{File.exist?(@log) && File.read(@log)}"

      after = page.fetch("/other")
      assert_equal [200, "ok\n", "h3"], after.values_at("status", "text", "protocol"), "the next request over h3"
      assert_equal before["connection"], after["connection"], "the same QUIC connection served on"
    end
  end

  def test_a_raw_h3_client_gets_408_at_first_data_timeout_while_its_body_is_stalled_and_its_connection_serves_on
    size = 200 * 1024 # spooled: past the 112 KiB held in memory
    busy = []
    spooled = 0
    out = nil
    # The body's 200 KiB go out in one write before the stall begins. Twice in fresh-clone suite runs the
    # server reset that write, never alone: the 408 of a body that brought no byte for first_data_timeout
    # while it was still being written. A reset that late is the deadline at work, and the attempt is made
    # again (3 in all); a reset any sooner fails the test.
    3.times do |attempt|
      probe = Thread.new do
        h3_probe("stall", "#{@origin}/upload?log=#{@log}", size.to_s, "#{@origin}/other", timeout: 60)
      end
      while probe.alive? # the GETs before and after take the slot; the stall is while the body's file is open
        held = spool_files
        if held.positive?
          spooled = [spooled, held].max
          busy << @server.stats.fetch("queue").fetch("busy_slots")
        end
        sleep 0.05
      end
      out, err, status = probe.value
      assert status.success?, with_log(@server, "the probe failed: #{err}\n#{out}")
      reset_ms = out[/^upload reset after (\d+) ms/, 1]&.to_i
      break unless reset_ms

      diag("h3: attempt #{attempt + 1}: #{out.lines.grep(/\Aupload reset/).first.chomp}")
      assert_operator reset_ms, :>=, FIRST_DATA_TIMEOUT * 1000 - 100,
                      with_log(@server, "the upload was reset before the body deadline could pass: #{out}")
      assert eventually(timeout: 5) { spool_files.zero? }, "the reset upload's spool file is closed"
    end
    lines = out.lines(chomp: true)
    stalled = Integer(lines.grep(/\Astalled /).first&.split&.last || flunk("no stall: #{out}"))
    code, at = lines.grep(/\Astatus /).first&.split&.drop(1)
    waited = (Integer(at || flunk("no response while the body stalled: #{out}")) - stalled) / 1e9
    diag("h3: 408 arrived #{waited.round(3)} s after the body's last byte was written")
    assert_equal "408", code
    assert_in_delta FIRST_DATA_TIMEOUT, waited, 1.0, "the 408 came #{waited.round(2)} s after the last body byte"
    assert_equal ["get 200", "body 408\\n", "output reset", "get 200"],
                 [lines.grep(/\Aget /).first, lines.grep(/\Aend /).first&.sub(/\Aend \d+ /, ""), *lines.last(2)],
                 "408 with its body, the upload stopped by the server, and the connection still serving: #{out}"
    assert_equal 1, spooled, "the stalled body was spooled while it waited"
    assert_equal 0, spool_files, "its spool file is closed"
    assert busy.any? && busy.all?(&:zero?), "no slot was busy while the body stalled: #{busy.inspect}"
    refute File.exist?(@log), "the app saw the stalled request: #{File.exist?(@log) && File.read(@log)}"
  end

  def test_an_h3_upload_trickling_a_byte_a_second_for_twice_first_data_timeout_is_served_whole
    with_h3_page do |page|
      bytes = 2 * FIRST_DATA_TIMEOUT + 1
      result = page.fetch("/upload?log=#{@log}", <<~JS)
        { method: "POST", duplex: "half", body: new ReadableStream({
            sent: 0,
            async pull(controller) {
              if (this.sent === #{bytes}) { controller.close(); return; }
              if (this.sent > 0) await new Promise(r => setTimeout(r, 1000));
              controller.enqueue(new Uint8Array([65 + this.sent]));
              this.sent += 1;
            }
          }) }
      JS
      assert_equal 200, result["status"], with_log(@server, "a slow but progressing body: #{result.inspect}")
      seen = JSON.parse(result["text"])
      expected = (0...bytes).map { |i| (65 + i).chr }.join
      assert_equal({ "class" => "StringIO", "size" => bytes, "sha256" => Digest::SHA256.hexdigest(expected),
                     "rewound" => true }, seen)
      assert_equal "h3", result["protocol"]
    end
  end

  private

  # The host's open spool files for request bodies (unnamed files it made in TMPDIR: "(deleted)" links).
  def spool_files
    Dir.children("/proc/#{@server.pid}/fd").count do |fd|
      File.readlink("/proc/#{@server.pid}/fd/#{fd}").match?(%r{/puma-plus-body-[^/]*\.tmp \(deleted\)\z})
    rescue Errno::ENOENT
      false
    end
  end

  # Headless Chromium on a page of the server, forced onto HTTP/3 for its origin and trusting its
  # development certificate; yields an H3Page.
  def with_h3_page(&block)
    flags = ["--enable-quic", "--origin-to-force-quic-on=localhost:#{@port}",
             "--host-resolver-rules=MAP localhost 127.0.0.1", # bound to 127.0.0.1; Chromium tries ::1 first
             "--ignore-certificate-errors-spki-list=#{spki_hash(@server)}"]
    ready = "location.origin === #{JSON.generate(@origin)} && document.readyState === 'complete'"
    with_chromium_page("#{@origin}/", flags: flags, ready: ready) do |url|
      page = H3Page.new(url, self)
      begin
        block.call(page)
      ensure
        page.close
      end
    end
  end

  # One DevTools session on the page with the Network domain on, so each response carries the id of the
  # connection that brought it.
  class H3Page
    def initialize(url, test)
      uri = URI(url)
      @test = test
      @client = WebSocketClient.connect(uri.host, uri.port, uri.path)
      @ids = 0
      @responses = {}
      call("Network.enable")
    end

    # fetch(+path+, +init+) in the page, awaited: status, text, and the protocol and connection id Chromium
    # reports for its response.
    def fetch(path, init = "{}")
      result = call("Runtime.evaluate", expression: <<~JS, awaitPromise: true, returnByValue: true)
        fetch(#{JSON.generate(path)}, #{init}).then(async r => ({ status: r.status, text: await r.text(), url: r.url }))
      JS
      value = result.dig("result", "value") || @test.flunk("fetch #{path} failed in the page: #{result}")
      response = @responses.fetch(value["url"]) { @test.flunk("no Network.responseReceived for #{value['url']}") }
      value.merge("protocol" => response["protocol"], "connection" => response["connectionId"])
    end

    # Runs +script+ in the page without waiting for anything it starts.
    def start(script)
      result = call("Runtime.evaluate", expression: script, returnByValue: true)
      @test.flunk("the page's script failed: #{result}") if result["exceptionDetails"]
    end

    # The value of +expression+ in the page.
    def value(expression)
      call("Runtime.evaluate", expression: expression, returnByValue: true).dig("result", "value")
    end

    def close
      @client.socket.close
    end

    private

    # Sends one command and returns its result, noting the responses reported meanwhile.
    def call(method, timeout: 20, **params)
      id = (@ids += 1)
      @client.send_text(JSON.generate(id: id, method: method, params: params))
      deadline = @test.monotonic + timeout
      loop do
        remaining = deadline - @test.monotonic
        @test.flunk("no answer to #{method} within #{timeout} s") if remaining <= 0
        _opcode, payload = @client.read_message(timeout: remaining)
        message = JSON.parse(payload)
        if message["method"] == "Network.responseReceived"
          response = message.dig("params", "response")
          @responses[response["url"]] = response
        end
        next unless message["id"] == id
        @test.flunk("#{method} failed: #{message['error']}") if message["error"]

        return message["result"]
      end
    end
  end
end
