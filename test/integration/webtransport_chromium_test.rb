# A real browser on WebTransport sessions the host holds (docs/WEBTRANSPORT.md): Debian's Chromium, headless,
# loads a page over HTTP/1.1 on 127.0.0.1 and, through the DevTools protocol, opens a WebTransport session to
# the same server's HTTP/3 listener, trusting its certificate (ECDSA P-256, valid 10 days, made here) by the
# certificate's SHA-256 as serverCertificateHashes requires; it sends on a bidirectional stream, a
# unidirectional stream and as a datagram, each of which reaches the app as a message event of its kind
# (stream, with the stream's id, or datagram), and reads the app's answers the way each came: on the
# bidirectional stream itself (send_stream), as a datagram (send_datagram), and on a unidirectional stream
# of the server's (open_stream, send_stream twice, finish_stream), and a 400,000-byte message is answered
# whole on its bidirectional stream; then it closes with a code the app's
# close event must see. A session the app refuses by its query fails in the page. script/setup installs
# chromium; without it the test fails under CI rather than skipping.
require "devtools_helper"
require "digest"
require "open3"
require "tls_helper"

class WebtransportChromiumTest < IntegrationTest
  include DevtoolsHelper
  include TlsHelper
  TEST_TIMEOUT = 120

  # Runs in the page with PORT, HASH (base64 of the certificate's SHA-256) and TOKEN filled in: a session the
  # app refuses (no token) fails, then one it accepts sends on a bidi stream (and reads the answer on it), a
  # uni stream (the answer on a stream of the server's) and a datagram (resent every 200 ms until a datagram
  # answers it: either may be lost), and closes with 4001.
  SCENARIO = <<~JS
    (async () => {
      const hash = Uint8Array.from(atob("HASH"), (c) => c.charCodeAt(0));
      const options = { serverCertificateHashes: [{ algorithm: "sha-256", value: hash }] };
      const wait = (check) => new Promise((resolve) => {
        const started = Date.now();
        const poll = () => (check() || Date.now() - started > 20000) ? resolve() : setTimeout(poll, 20);
        poll();
      });
      let refused;
      try {
        const bad = new WebTransport("https://127.0.0.1:PORT/wt?token=wrong", options);
        await bad.ready;
        refused = "accepted";
        bad.close();
      } catch (e) {
        refused = "refused: " + e;
      }
      const wt = new WebTransport("https://127.0.0.1:PORT/wt?token=TOKEN", options);
      await wt.ready;
      const received = [];
      const datagramsReceived = [];
      const enc = new TextEncoder();
      const dec = new TextDecoder();
      (async () => {
        const streams = wt.incomingUnidirectionalStreams.getReader();
        while (true) {
          const { value, done } = await streams.read();
          if (done) break;
          received.push(await new Response(value).text());
        }
      })().catch(() => {});
      (async () => {
        const datagrams = wt.datagrams.readable.getReader();
        while (true) {
          const { value, done } = await datagrams.read();
          if (done) break;
          datagramsReceived.push(dec.decode(value));
        }
      })().catch(() => {});
      const bidi = await wt.createBidirectionalStream();
      const bidiWriter = bidi.writable.getWriter();
      await bidiWriter.write(enc.encode("over a bidi stream"));
      await bidiWriter.close();
      const bidiAnswer = await new Response(bidi.readable).text();
      // 400,000 bytes each way: the answer's write is past what Kwik's 50 KiB send buffer takes at once.
      const big = "0123456789".repeat(40000);
      const bigStream = await wt.createBidirectionalStream();
      const bigWriter = bigStream.writable.getWriter();
      await bigWriter.write(enc.encode(big));
      await bigWriter.close();
      const bigText = await new Response(bigStream.readable).text();
      const bigAnswer = bigText === "echo:" + big ? "whole" : "not whole: " + bigText.length + " characters";
      const uni = await wt.createUnidirectionalStream();
      const uniWriter = uni.getWriter();
      await uniWriter.write(enc.encode("over a uni stream"));
      await uniWriter.close();
      const datagrams = wt.datagrams.writable.getWriter();
      for (let i = 0; i < 50 && !datagramsReceived.includes("echo:as a datagram"); i++) {
        await datagrams.write(enc.encode("as a datagram"));
        await new Promise((r) => setTimeout(r, 200));
      }
      await wait(() => received.length >= 1);
      wt.close({ closeCode: 4001, reason: "done here" });
      const closed = await wt.closed.then((info) => info, (e) => "closed with error " + e);
      return JSON.stringify({ refused, bidiAnswer, bigAnswer, received, datagrams: datagramsReceived, closed });
    })()
  JS

  def test_chromium_gets_the_apps_answer_on_its_own_bidi_stream_as_a_datagram_and_on_a_uni_stream_and_the_app_sees_each_kind_and_the_close_code
    dir = temp_dir
    cert, key = ec_certificate(dir)
    hash = Digest::SHA256.base64digest(OpenSSL::X509::Certificate.new(File.read(cert)).to_der)
    server = start_server(app("webtransport_echo.ru"), threads: 2,
                          args: ["-b", "tcp://127.0.0.1:0", "-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}",
                                 "--bundles", "h1,h2,h3"])
    port = tls_port(server)
    printed = server.output[%r{WebTransport on https://127\.0\.0\.1:#{port}: certificate sha256 (\S+) \(serverCertificateHashes may name it\)}, 1]
    assert_equal hash, printed, with_log(server, "the host prints the certificate's SHA-256 at start")
    with_chromium_page("http://127.0.0.1:#{server.port}/", ready: "document.getElementById('ready')") do |page|
      script = SCENARIO.gsub("PORT", port.to_s).gsub("HASH", hash).gsub("TOKEN", "let-me-in")
      result = begin
        JSON.parse(evaluate(page, script, timeout: 60))
      rescue Minitest::Assertion => e
        flunk(with_log(server, e.message))
      end
      message = with_log(server, "what the page saw: #{result}")
      assert_match(/\Arefused: /, result.fetch("refused"), message)
      assert_equal "echo:over a bidi stream", result.fetch("bidiAnswer"), "#{message}: the answer on the bidi stream itself"
      assert_equal "whole", result.fetch("bigAnswer"), "#{message}: a 400,000-byte message's answer"
      assert_equal ["echo:over a uni stream"], result.fetch("received"), "#{message}: only the uni stream's answer on a stream of ours"
      assert_includes result.fetch("datagrams"), "echo:as a datagram", "#{message}: a datagram answers the datagram"
      id = eventually { server.output[/webtransport (\d+) close 4001$/, 1] }
      assert id, with_log(server, "the app saw no close event with code 4001")
      assert_match(%r{webtransport upgrade /wt\?token=let-me-in HTTP/3}, server.output, message)
      bidi = server.output[/webtransport #{id} message stream (\d+) "over a bidi stream"/, 1]
      uni = server.output[/webtransport #{id} message stream (\d+) "over a uni stream"/, 1]
      assert bidi && uni, with_log(server, "the app sees each stream's message as type stream with its id")
      assert_equal [0, 2], [Integer(bidi) % 4, Integer(uni) % 4], "client-initiated bidi and uni ids (RFC 9000 §2.1)"
      assert_match(/webtransport #{id} message datagram "as a datagram"/, server.output, message)
    end
  end

  # Opens a session and leaves it open; the browser is then killed, so its QUIC connection falls silent and
  # the host's QUIC idle timeout (persistent_timeout, 3 s here) ends it.
  OPEN_AND_LEAVE = <<~JS
    (async () => {
      const hash = Uint8Array.from(atob("HASH"), (c) => c.charCodeAt(0));
      const wt = new WebTransport("https://127.0.0.1:PORT/wt?token=let-me-in",
                                  { serverCertificateHashes: [{ algorithm: "sha-256", value: hash }] });
      await wt.ready;
      return "ready";
    })()
  JS

  def test_a_session_whose_quic_connection_ends_reaches_the_apps_close_event_as_1006_and_stats_count_it_held_until_then
    dir = temp_dir
    cert, key = ec_certificate(dir)
    hash = Digest::SHA256.base64digest(OpenSSL::X509::Certificate.new(File.read(cert)).to_der)
    config = File.join(dir, "puma-plus.rb")
    File.write(config, "persistent_timeout 3\n")
    server = start_server(app("webtransport_echo.ru"), threads: 2, config: config,
                          args: ["-b", "tcp://127.0.0.1:0", "-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}",
                                 "--bundles", "h1,h2,h3"])
    port = tls_port(server)
    with_chromium_page("http://127.0.0.1:#{server.port}/", ready: "document.getElementById('ready')") do |page|
      assert_equal "ready", evaluate(page, OPEN_AND_LEAVE.gsub("PORT", port.to_s).gsub("HASH", hash), timeout: 30)
      assert eventually { server.output[/webtransport (\d+) open/, 1] }, with_log(server, "no open event")
      held = server.stats.fetch("websockets")
      assert_equal [0, 1], [held.fetch("held"), held.dig("webtransport", "sessions")],
                   "/stats counts the session held as WebTransport's, not as a WebSocket: #{held}"
    end
    id = server.output[/webtransport (\d+) open/, 1]
    closed = eventually(timeout: 20) { server.output[/webtransport #{id} close (-?\d+)$/, 1] }
    assert_equal "1006", closed, with_log(server, "the app's close event for a connection that went silent")
    assert_equal 0, server.stats.dig("websockets", "webtransport", "sessions"), "the ended session is no longer held"
    assert_match(/^puma_plus_webtransport_sessions 0$/, Net::HTTP.get(server.control_uri("/metrics")))
  end

  def test_a_graceful_stop_closes_a_held_session_and_the_app_sees_1001
    dir = temp_dir
    cert, key = ec_certificate(dir)
    hash = Digest::SHA256.base64digest(OpenSSL::X509::Certificate.new(File.read(cert)).to_der)
    server = start_server(app("webtransport_echo.ru"), threads: 2,
                          args: ["-b", "tcp://127.0.0.1:0", "-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}",
                                 "--bundles", "h1,h2,h3"])
    port = tls_port(server)
    with_chromium_page("http://127.0.0.1:#{server.port}/", ready: "document.getElementById('ready')") do |page|
      assert_equal "ready", evaluate(page, OPEN_AND_LEAVE.gsub("PORT", port.to_s).gsub("HASH", hash), timeout: 30)
      id = eventually { server.output[/webtransport (\d+) open/, 1] }
      assert id, with_log(server, "no open event")
      status = server.stop
      assert status&.success?, with_log(server, "the host exits 0 after a graceful stop: #{status.inspect}")
      assert_match(/webtransport #{id} close 1001$/, server.output, with_log(server, "the app's close event"))
    end
  end
end
