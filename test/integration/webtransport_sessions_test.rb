# Many WebTransport sessions from a real browser on few slots (docs/WEBTRANSPORT.md, "Cost per session"):
# one headless Chromium page opens 200 sessions (200 WebTransport objects) to a host of 2 workers x 2
# threads, each session sends one message on a unidirectional stream and one on a bidirectional stream, and
# every answer must reach the session that asked (the uni stream's on a stream of the server's that the host
# routes by session id, the bidi stream's on that stream); no slot is busy between messages. It also
# measures what an idle session costs (host RSS and PSS, workers' RSS, before and after the 200 sessions
# open, divided by 200; printed) and how Chromium carries the sessions: the UDP sockets connected to the
# host's HTTP/3 port (`ss`), one per QUIC connection.
require "devtools_helper"
require "digest"
require "open3"
require "tls_helper"

class WebtransportSessionsTest < IntegrationTest
  include DevtoolsHelper
  include TlsHelper
  TEST_TIMEOUT = 240
  SESSIONS = 200

  # In the page, with PORT, HASH and COUNT filled in: opens COUNT sessions, 20 at a time, keeps them in
  # window.sessions with what each receives on streams of the server's; resolves with how many are ready.
  OPEN = <<~JS
    (async () => {
      const hash = Uint8Array.from(atob("HASH"), (c) => c.charCodeAt(0));
      const options = { serverCertificateHashes: [{ algorithm: "sha-256", value: hash }] };
      window.sessions = [];
      const open = async (i) => {
        const wt = new WebTransport("https://127.0.0.1:PORT/wt?token=let-me-in&n=" + i, options);
        await wt.ready;
        const session = { wt, received: [] };
        (async () => {
          const streams = wt.incomingUnidirectionalStreams.getReader();
          while (true) {
            const { value, done } = await streams.read();
            if (done) break;
            session.received.push(await new Response(value).text());
          }
        })().catch(() => {});
        window.sessions[i] = session;
      };
      for (let first = 0; first < COUNT; first += 20) {
        const batch = [];
        for (let i = first; i < Math.min(first + 20, COUNT); i++) batch.push(open(i));
        await Promise.all(batch);
      }
      return window.sessions.filter((s) => s).length;
    })()
  JS

  # Every session at once sends "u<i>" on a uni stream and "b<i>" on a bidi stream; resolves with, per session,
  # its bidi answer and what arrived on its uni streams within 60 s.
  EXCHANGE = <<~JS
    (async () => {
      const enc = new TextEncoder();
      const exchange = async (session, i) => {
        const uni = await session.wt.createUnidirectionalStream();
        const uniWriter = uni.getWriter();
        await uniWriter.write(enc.encode("u" + i));
        await uniWriter.close();
        const bidi = await session.wt.createBidirectionalStream();
        const writer = bidi.writable.getWriter();
        await writer.write(enc.encode("b" + i));
        await writer.close();
        const bidiAnswer = await new Response(bidi.readable).text();
        const started = Date.now();
        while (session.received.length === 0 && Date.now() - started < 60000) {
          await new Promise((r) => setTimeout(r, 20));
        }
        return { bidi: bidiAnswer, uni: session.received.slice() };
      };
      return JSON.stringify(await Promise.all(window.sessions.map(exchange)));
    })()
  JS

  def test_two_hundred_chromium_sessions_on_four_slots_each_get_their_own_answers_and_hold_no_slot_between_messages
    require_tool("ss")
    dir = temp_dir
    cert, key = ec_certificate(dir)
    hash = Digest::SHA256.base64digest(OpenSSL::X509::Certificate.new(File.read(cert)).to_der)
    server = start_server(app("webtransport_echo.ru"), workers: 2, threads: 2,
                          args: ["-b", "tcp://127.0.0.1:0", "-b", "ssl://127.0.0.1:0?cert=#{cert}&key=#{key}",
                                 "--bundles", "h1,h2,h3"])
    assert_equal 4, server.slots
    port = tls_port(server)
    with_chromium_page("http://127.0.0.1:#{server.port}/", ready: "document.getElementById('ready')") do |page|
      assert idle?(server, 0), with_log(server, "the host is idle before the sessions: #{server.stats['queue']}")
      before = memory(server)
      opened = begin
        evaluate(page, OPEN.gsub("PORT", port.to_s).gsub("HASH", hash).gsub("COUNT", SESSIONS.to_s), timeout: 120)
      rescue Minitest::Assertion => e
        flunk(with_log(server, e.message))
      end
      assert_equal SESSIONS, opened, with_log(server, "sessions ready in the page")
      assert idle?(server, SESSIONS), with_log(server, "every open event ran: #{server.stats}")
      after = memory(server)
      connections = quic_connections(port)
      report(before, after, connections)
      assert_equal SESSIONS, connections, "Chromium opens one QUIC connection per session (docs/WEBTRANSPORT.md)"
      assert_equal 0, server.stats.dig("websockets", "webtransport", "sessions_refused"), "no CONNECT was refused"

      result = JSON.parse(evaluate(page, EXCHANGE, timeout: 90))
      assert_equal SESSIONS, result.size
      wrong = result.each_with_index.reject { |answer, i| answer == { "bidi" => "echo:b#{i}", "uni" => ["echo:u#{i}"] } }
      assert_empty wrong.first(5), with_log(server, "#{wrong.size} sessions got another answer than their own " \
                                                    "(first five: [answer, session])")
      assert idle?(server, SESSIONS), "no slot is busy once every message was answered: #{server.stats['queue']}"
      messages = server.output.scan(/webtransport \d+ message stream \d+ "[ub]\d+"/).size
      assert_equal 2 * SESSIONS, messages, "the app saw each message once"
    end
  end

  private

  # True once the queue is empty, no slot is busy and the host holds +sessions+ WebTransport sessions.
  def idle?(server, sessions)
    eventually(timeout: 60, interval: 0.2) do
      stats = server.stats
      stats.dig("queue", "busy_slots").zero? && stats.dig("queue", "depth").zero? &&
        stats.dig("websockets", "webtransport", "sessions") == sessions
    end
  end

  # KiB: the host's RSS and PSS (smaps_rollup), its live Java heap after a full GC (jcmd), the sum of its
  # workers' RSS; and the host's thread count.
  def memory(server)
    status = ->(pid, key) { Integer(File.read("/proc/#{pid}/status")[/^#{key}:\s+(\d+)/, 1]) }
    jcmd = File.join(File.dirname(JAVA), "jcmd")
    Open3.capture2e("timeout", "30", jcmd, server.pid.to_s, "GC.run")
    heap, = Open3.capture2e("timeout", "30", jcmd, server.pid.to_s, "GC.heap_info")
    pss = Integer(File.read("/proc/#{server.pid}/smaps_rollup")[/^Pss:\s+(\d+) kB/, 1])
    { host_rss: status.call(server.pid, "VmRSS"), host_pss: pss,
      host_heap_live: heap_used(heap), host_threads: status.call(server.pid, "Threads"),
      workers_rss: server.worker_pids.sum { |pid| status.call(pid, "VmRSS") } }
  end

  # KiB: the used space of every generation (or G1's one heap) in jcmd GC.heap_info's text.
  def heap_used(text)
    used = text.scan(/total \d+K, used (\d+)K/).flatten.map { |kib| Integer(kib) }
    flunk("jcmd GC.heap_info: #{text}") if used.empty?
    used.sum
  end

  # The UDP sockets connected to 127.0.0.1:+port+ (Chromium's, one per QUIC connection).
  def quic_connections(port)
    out, status = Open3.capture2("ss", "-Hun", "state", "established", "dst", "127.0.0.1:#{port}")
    assert status.success?, "ss failed"
    out.lines.size
  end

  def report(before, after, connections)
    per_session = before.keys.map do |key|
      next "host_threads #{before[key]} -> #{after[key]}" if key == :host_threads

      "#{key} #{before[key]} -> #{after[key]} KiB (#{((after[key] - before[key]) * 1024.0 / SESSIONS).round} bytes a session)"
    end
    puts "\n#{SESSIONS} idle WebTransport sessions from Chromium on #{connections} QUIC connections: #{per_session.join(', ')}"
  end
end
