# Under `log_format json` every line the server's process tree prints is one JSON object: the host's own
# lines (boot, ready, stop), a Netty warning routed through the host's log, the shepherd's report of a worker
# killed with SIGKILL, and a worker's report of an app that raised.
require "server_helper"
require "socket"

class LogFormatJsonTest < IntegrationTest
  TEST_TIMEOUT = 90

  APP = <<~RUBY
    run lambda { |env|
      case env["PATH_INFO"]
      when "/raise" then raise ArgumentError, %q(boom "quoted" \\ back)
      when "/pid" then [200, { "content-type" => "text/plain" }, ["\#{Process.pid}\\n"]]
      else [200, { "content-type" => "text/plain" }, ["hello\\n"]]
      end
    }
  RUBY

  # The runtime contract's waits ("puma-plus: ready, N slots", ...) read each JSON line's message as the text
  # line it stands for.
  class JsonServer < PumaPlusServer
    # A pattern for PumaPlusServer's line waits that matches "puma-plus: MESSAGE" of a JSON line.
    class MessageOf
      def initialize(pattern)
        @pattern = pattern
      end

      def match(line)
        record = JSON.parse(line)
        record.is_a?(Hash) ? @pattern.match("puma-plus: #{record['message']}") : nil
      rescue JSON::ParserError
        nil
      end
    end

    private

    def wait_for_line(pattern, timeout)
      super(MessageOf.new(pattern), timeout)
    end
  end

  def test_every_line_of_host_shepherd_workers_and_netty_is_one_json_object
    dir = temp_dir
    File.write(File.join(dir, "config.ru"), APP)
    server = JsonServer.new("config.ru", workers: 2, threads: 1, chdir: dir, args: %w[--log-format json --bundles h1,h2])
    (@servers ||= []) << server
    server.start

    assert_equal 500, server.request("GET", "/raise").status
    assert server.await_line(/app raised: ArgumentError: boom "quoted" \\ back/, 10), with_log(server, "no report of the app's error")

    # h2c prior knowledge, then a frame that is not SETTINGS: Netty's codec raises a connection error that
    # reaches the tail of the pipeline, where Netty logs a warning (io.netty.channel.DefaultChannelPipeline).
    h2 = TCPSocket.new("127.0.0.1", server.port)
    h2.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + [0, 0, 0, 6, 0, 0, 0, 0, 0].pack("C*")) # PING of length 0
    assert server.await_line(/An exceptionCaught\(\) event was fired/, 10), with_log(server, "no Netty warning")
    h2.close

    victim = Integer(server.request("GET", "/pid").body)
    Process.kill("KILL", victim)
    assert server.await_line(/\(pid #{victim}\) exited on signal KILL/, 10), with_log(server, "no report of the worker's death")
    assert eventually(timeout: 30) { server.stats["booted_workers"] == 2 && !server.worker_pids.include?(victim) },
           with_log(server, "the killed worker was not replaced")

    status = server.stop
    assert status&.success?, with_log(server, "the host did not stop cleanly: #{status.inspect}")
    records = server.output.lines.map do |line|
      record = begin
        JSON.parse(line)
      rescue JSON::ParserError => e
        flunk("a line that is not JSON (#{e.message}): #{line.inspect}")
      end
      assert_kind_of Hash, record, line
      assert record.key?("message") && record.key?("pid") && record.key?("time"), line
      record
    end
    sources = records.map { |r| r["source"] }
    assert_includes sources, "host"
    assert_includes sources, "shepherd"
    assert(sources.any? { |s| s.to_s.start_with?("worker") }, "a worker's line: #{sources.uniq}")
    netty = records.find { |r| r["logger"].to_s.start_with?("io.netty.") }
    assert netty, "Netty's warning went through the host's log"
    assert_equal "warning", netty["level"]
    assert_match(/Http2Exception/, netty["error"])
    assert_equal "stopped", records.last["message"], "the host's last line"
  end
end
