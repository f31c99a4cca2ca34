# frozen_string_literal: true

# Shared setup for the gem's unit tests: load path, minitest, and a per-test timeout so that a test that
# hangs (a worker thread waiting on a socket, say) fails instead of stalling the run.
$LOAD_PATH.unshift File.expand_path("../lib", __dir__)

require "minitest/autorun"
require "timeout"
require "tmpdir"
require "fileutils"
require "socket"
require "rbconfig"
require "puma_plus"

module PumaPlus
  class TestCase < Minitest::Test
    # Seconds any one test (setup + body + teardown) may take.
    TIMEOUT = Integer(ENV.fetch("PUMA_PLUS_TEST_TIMEOUT", "10"))

    # Minitest runs setup, the test and teardown inside capture_exceptions; wrapping it bounds each.
    def capture_exceptions
      super { Timeout.timeout(TIMEOUT, Timeout::Error, "test took longer than #{TIMEOUT} s") { yield } }
    end

    # Whether process +pid+ is running (a zombie counts as gone).
    def process_alive?(pid)
      Process.kill(0, pid)
      File.read("/proc/#{pid}/stat").split[2] != "Z"
    rescue Errno::ESRCH, Errno::ENOENT
      false
    end

    # Polls +block+ every 20 ms until it is truthy or +seconds+ pass; returns its last value.
    def eventually(seconds = 5)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
      loop do
        value = yield
        return value if value || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.02
      end
    end
  end
end

module PumaPlus
  # The host's end of one worker link in tests: a socket from UNIXSocket.pair, spoken to with the
  # production codec (frames built by PumaPlus::Wire, never hand-rolled bytes).
  class HostEnd
    Wire = PumaPlus::Wire
    # +head+: the decoded Wire::ResponseHead (status, timing points, pairs).
    Response = Struct.new(:status, :headers, :body, :frames, :aborted, :head)

    attr_reader :io

    def initialize(io)
      @io = io
    end

    # Reads the peer's HELLO and answers WELCOME (with +version+, as a host that speaks it would); returns the
    # Hello.
    def accept(link_id: 7, version: Wire::VERSION)
      frame = read_frame
      raise "expected HELLO, got #{frame&.type_name.inspect}" unless frame&.type == Wire::FrameType::HELLO

      @io.write(Wire::Welcome.new(version: version, link_id: link_id).encode)
      Wire.decode(frame)
    end

    # Sends a REQUEST built from +pairs+ (Hash or pair list) and +body+ (nil: no BODY frames; a String
    # or an Array of Strings: BODY frames, the last with END_STREAM). The timing fields T2, T2b, T3
    # (CLOCK_MONOTONIC ns) default to one reading taken now, as for a request dispatched at once.
    # +pause+: seconds to sleep before each BODY frame (a body the host delivers slowly).
    def request(pairs, body = nil, headers_parsed_ns: nil, runnable_ns: nil, dispatched_ns: nil, pause: nil)
      pairs = { "REQUEST_METHOD" => "GET", "SCRIPT_NAME" => "", "PATH_INFO" => "/", "QUERY_STRING" => "",
                "SERVER_NAME" => "localhost", "SERVER_PORT" => "9292", "SERVER_PROTOCOL" => "HTTP/1.1",
                "REMOTE_ADDR" => "127.0.0.1", "rack.url_scheme" => "http" }.merge(pairs.to_h)
      now = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      request = Wire::Request.new(headers_parsed_ns: headers_parsed_ns || now, runnable_ns: runnable_ns || now,
                                  dispatched_ns: dispatched_ns || now, pairs: pairs.to_a)
      if body.nil?
        @io.write(request.encode(Wire::Frame::END_STREAM))
      else
        chunks = Array(body)
        @io.write(request.encode)
        chunks.each_with_index do |chunk, i|
          sleep pause if pause
          @io.write(Wire::Body.new(data: chunk).encode(i == chunks.size - 1 ? Wire::Frame::END_STREAM : 0))
        end
      end
    end

    # Reads one complete response: RESPONSE_HEAD then RESPONSE_BODY frames up to END_STREAM, or up to a
    # RESPONSE_ABORT.
    def response
      frames = []
      head = read_frame
      raise "expected RESPONSE_HEAD, got #{head&.type_name.inspect}" unless head&.type == Wire::FrameType::RESPONSE_HEAD

      frames << head
      decoded = Wire.decode(head)
      body = String.new(encoding: Encoding::BINARY)
      aborted = nil
      done = head.end_stream?
      until done
        frame = read_frame
        frames << frame
        case frame&.type
        when Wire::FrameType::RESPONSE_BODY
          body << frame.payload
          done = frame.end_stream?
        when Wire::FrameType::RESPONSE_ABORT
          aborted = Wire.decode(frame).reason
          done = true
        else raise "unexpected #{frame&.type_name.inspect} in a response"
        end
      end
      Response.new(decoded.status, decoded.pairs, body, frames, aborted, decoded)
    end

    def read_frame
      Wire::Frame.read(@io)
    end

    def goaway(code = 0, reason = "bye")
      @io.write(Wire::GoAway.new(code: code, reason: reason).encode)
    end

    def close
      @io.close unless @io.closed?
    end
  end
end

module PumaPlus
  # Plays the Java host for process-level tests: listens on a real link.sock in a private temp
  # directory, spawns the real shepherd executable with PUMA_PLUS_LINK pointing at it, and hands out
  # HostEnds for the links that dial in.
  class TestHost
    SHEPHERD = File.expand_path("../exe/puma-plus-shepherd", __dir__)
    LIB = File.expand_path("../lib", __dir__)

    attr_reader :dir, :link_path, :pid, :log_path

    def initialize
      @dir = Dir.mktmpdir("puma-plus-test-host")
      File.chmod(0o700, @dir)
      @link_path = File.join(@dir, "link.sock")
      @server = UNIXServer.new(@link_path)
      @log_path = File.join(@dir, "shepherd.log")
      @pid = nil
    end

    # Spawns `<ruby> -I<lib> exe/puma-plus-shepherd *argv` in +chdir+, its own process group, output to
    # log_path (stdout and stderr, as the host would inherit them).
    def spawn_shepherd(argv, chdir:, env: {})
      env = { "PUMA_PLUS_LINK" => @link_path, "RACK_ENV" => nil, "RAILS_ENV" => nil, "PORT" => nil,
              "WEB_CONCURRENCY" => nil, "RAILS_MAX_THREADS" => nil, "PUMA_MAX_THREADS" => nil }.merge(env)
      @pid = Process.spawn(env, RbConfig.ruby, "-I#{LIB}", SHEPHERD, *argv, chdir: chdir, pgroup: true,
                           %i[out err] => [@log_path, "w"])
    end

    # The next link that dials in, handshaken (HELLO read, WELCOME sent); [HostEnd, Hello].
    def accept_link
      io = @server.accept
      host_end = HostEnd.new(io)
      [host_end, host_end.accept]
    end

    # The next link that dials in, not handshaken.
    def accept_raw
      HostEnd.new(@server.accept)
    end

    # Whether a link dials in within +seconds+.
    def link_pending?(seconds)
      !@server.wait_readable(seconds).nil?
    end

    def log
      File.exist?(@log_path) ? File.read(@log_path) : ""
    end

    # Waits for the shepherd to exit; its Process::Status, or nil after +seconds+.
    def wait_shepherd(seconds)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
      loop do
        _, status = Process.wait2(@pid, Process::WNOHANG)
        if status
          @pid = nil
          return status
        end
        return nil if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.02
      end
    end

    # Kills whatever is left of the shepherd's process group and removes the directory.
    def cleanup
      if @pid
        begin
          Process.kill("KILL", -@pid)
          Process.wait(@pid)
        rescue Errno::ESRCH, Errno::ECHILD
          nil
        end
      end
      @server.close
      FileUtils.rm_rf(@dir)
    end
  end
end
