# Slowloris against the real host and workers (docs/SECURITY.md, "Deadlines and limits"): 1,000
# connections trickling header sections and 200 trickling request bodies, all on loopback, while ordinary
# clients send 100 requests a second. The attack is in the accept and parse steps only: it must not reach
# the queue or a worker. Claims: the ordinary clients' p99 stays within 1.5 times its value in the quiet
# windows between attacks, not one ordinary request fails, and every slot is free afterwards. Quiet and
# attack windows alternate, so a change in the machine's load (other work on a shared 2-core machine)
# lands on both.
require "socket"
require "server_helper"

class SlowlorisTest < IntegrationTest
  TEST_TIMEOUT = 120
  HEADER_TRICKLERS = 1000
  BODY_TRICKLERS = 200
  RATE = 100 # ordinary requests per second
  CLIENTS = 4 # keep-alive connections the ordinary requests share
  ROUNDS = 3
  WINDOW = 6 # seconds of each quiet and each attack window
  HEADER_TIMEOUT = 4 # short, so tricklers are cut (408) and reconnect inside each window
  DESCRIPTORS = 4096 # this process: the ordinary clients; the attack's child and the host inherit it

  def test_slowloris_leaves_ordinary_p99_within_one_and_a_half_times_the_quiet_one_with_no_error_and_no_slot_held
    raise_descriptor_limit
    dir = temp_dir
    File.write(File.join(dir, "puma-plus.rb"), "header_timeout #{HEADER_TIMEOUT}\n")
    server = start_server(app("probe.ru"), threads: 4, config: File.join(dir, "puma-plus.rb"))
    quiet = []
    attacked = []
    errors = []
    reports = []
    ROUNDS.times do
      quiet.concat(ordinary_latencies(server.port, errors))
      attack = Attack.new(server.port)
      attacked.concat(ordinary_latencies(server.port, errors))
      reports << attack.stop
    end
    quiet_p99 = p99(quiet)
    attacked_p99 = p99(attacked)
    diag("ordinary p99 quiet #{ms(quiet_p99)} ms (#{quiet.size} requests), under attack #{ms(attacked_p99)} ms " \
         "(#{attacked.size}); attack rounds #{reports.inspect}")
    assert_empty errors, with_log(server, "ordinary requests failed: #{errors.first(5).inspect}")
    reports.each do |report|
      refute report.key?(:failed), "the attack failed: #{report[:failed]}"
      assert_operator report[:open], :>=, (HEADER_TRICKLERS + BODY_TRICKLERS) * 9 / 10,
                      "the attack must really hold its connections: #{report.inspect}"
      assert_operator report[:cut_with_408], :>, 0, "header tricklers must be cut at header_timeout: #{report.inspect}"
    end
    assert_operator attacked_p99, :<=, 1.5 * quiet_p99,
                    "ordinary p99 #{ms(attacked_p99)} ms under attack vs #{ms(quiet_p99)} ms quiet"
    free = eventually(timeout: 10) do
      stats = server.stats
      stats.fetch("queue").fetch("busy_slots").zero? && stats.fetch("backlog").zero?
    end
    assert free, "slots still held after the attack: #{server.stats.inspect}"
  end

  private

  def raise_descriptor_limit
    soft, hard = Process.getrlimit(:NOFILE)
    return if soft >= DESCRIPTORS

    skip_or_fail("the open-file limit (hard #{hard}) is below #{DESCRIPTORS}") if hard < DESCRIPTORS
    Process.setrlimit(:NOFILE, DESCRIPTORS, hard)
  end

  # One WINDOW of ordinary traffic: RATE GETs a second spread over CLIENTS keep-alive connections, each
  # request at its scheduled time; returns the latencies (s). A failure is appended to +errors+.
  def ordinary_latencies(port, errors)
    start = monotonic + 0.05
    per_client = RATE * WINDOW / CLIENTS
    interval = CLIENTS.to_f / RATE
    threads = Array.new(CLIENTS) do |c|
      Thread.new do
        latencies = []
        connection = RawHttp::Connection.new("127.0.0.1", port)
        per_client.times do |i|
          due = start + (i * interval) + (c * interval / CLIENTS)
          pause = due - monotonic
          sleep pause if pause.positive?
          sent = monotonic
          connection.write(RawHttp.request("GET", "/", {}, host: "x"))
          response = connection.read_response(timeout: 5)
          latencies << (monotonic - sent)
          errors << "status #{response.status}" unless response.status == 200 && response.body == "hello\n"
        rescue StandardError => e
          errors << "#{e.class}: #{e.message}"
          connection&.close
          connection = RawHttp::Connection.new("127.0.0.1", port)
        end
        connection.close
        latencies
      end
    end
    threads.flat_map(&:value)
  end

  def p99(values)
    sorted = values.sort
    sorted[(sorted.size * 0.99).ceil - 1]
  end

  def ms(seconds)
    (seconds * 1000).round(2)
  end

  # The attackers, in a child process so that their loop never holds this process's lock (the GVL) while
  # an ordinary request waits for its answer. The child opens every connection before #initialize returns,
  # then trickles a byte a second on each, reconnects a connection the server closed (counting 408s) and,
  # told to stop, closes everything and reports. The header tricklers start one after another over one
  # header_timeout, as independent attackers would, so their deadlines (and reconnections) are spread out
  # rather than all falling in the same instant.
  class Attack
    def initialize(port)
      @control, child_control = UNIXSocket.pair
      @pid = fork do
        @control.close
        report = begin
          trickle(port, child_control)
        rescue StandardError => e
          { failed: "#{e.class}: #{e.message} at #{e.backtrace.first}" }
        end
        child_control.write(Marshal.dump(report))
        exit!(0)
      end
      child_control.close
      ready = @control.read(1)
      raise "the attack did not start: #{Marshal.load(ready.to_s + @control.read).inspect}" unless ready == "R"
    end

    # Ends the attack; returns its counts: connections open at the end, header tricklers cut with 408,
    # other closes.
    def stop
      @control.write("S")
      report = Marshal.load(@control.read)
      Process.wait(@pid)
      report
    ensure
      @control.close
    end

    HEADER = "GET / HTTP/1.1\r\nHost: x\r\nX-Trickle: ".b
    BODY_HEAD = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 500000\r\n\r\n".b
    TICK = 0.02 # seconds between the loop's passes

    # +due+: when it next sends (its first bytes, then a byte a second); +started+: it sent its first bytes.
    Trickler = Struct.new(:socket, :kind, :due, :started)

    private

    def trickle(port, control)
      cut = 0
      closed = 0
      now = monotonic
      tricklers = Array.new(HEADER_TRICKLERS) do |i|
        open_trickler(port, :header, now + (i * HEADER_TIMEOUT.to_f / HEADER_TRICKLERS))
      end
      tricklers += Array.new(BODY_TRICKLERS) { |i| open_trickler(port, :body, now + (i.to_f / BODY_TRICKLERS)) }
      control.write("R")
      until control.wait_readable(TICK)
        now = monotonic
        tricklers.each_with_index do |trickler, i|
          next if trickler.due > now

          trickler.due += 1
          unless trickler.started
            trickler.socket.write(trickler.kind == :header ? HEADER : BODY_HEAD)
            trickler.started = true
            next
          end
          answer = begin
            trickler.socket.read_nonblock(256, exception: false)
          rescue Errno::ECONNRESET
            nil
          end
          if answer != :wait_readable # an answer or EOF: the server is done with this one
            answer.to_s.start_with?("HTTP/1.1 408") ? cut += 1 : closed += 1
            trickler.socket.close
            tricklers[i] = open_trickler(port, trickler.kind, now)
            next
          end
          begin
            trickler.socket.write_nonblock("a")
          rescue IO::WaitWritable, Errno::EPIPE, Errno::ECONNRESET
            nil # full, or closed: the next read sees which
          end
        end
      end
      control.read(1) # the stop byte, read so that closing does not reset the socket
      open = tricklers.count { |t| !t.socket.closed? }
      tricklers.each { |t| t.socket.close unless t.socket.closed? }
      { open: open, cut_with_408: cut, other_closes: closed }
    end

    def open_trickler(port, kind, due)
      Trickler.new(Socket.tcp("127.0.0.1", port), kind, due, false)
    end

    def monotonic
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end
