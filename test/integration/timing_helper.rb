# What the timing tests share: the host's per-request log line (`log_requests`) parsed into the seven
# timing points, a config file switching it on, percentiles, a one-thread client that drives many
# connections at once (closed or open loop) and timestamps each exchange on the host's clock, and readers
# for /stats and /metrics. It sits on the client's side of the request's path and reads the host's record
# of the same requests, so a test can hold one against the other.
require "server_helper"

module Timing
  # Client timestamps are CLOCK_MONOTONIC nanoseconds, the clock of T1..T6 (Java's System.nanoTime and
  # Ruby's Process.clock_gettime share it on Linux), so they can be compared with the host's directly.
  def self.now_ns
    Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
  end

  MS = 1_000_000 # ns
  US = 1_000     # ns

  # One `puma-plus: request ...` line (docs/METRICS.md "Per-request log"). All times are ns.
  Record = Struct.new(:id, :method, :path, :status, :t1, :t2, :t2b, :t3, :t4, :t5, :t6, :body_read, keyword_init: true) do
    def header_parse = t2 - t1
    def body_wait = t2b - t2 + body_read
    def queue = t3 - t2b
    def dispatch_to_call = t4 - t3
    def service = t5 - t4 - body_read
    def respond = t6 - t5
    def total = t6 - t1
    # The parts of the total, in request order. body_read lies inside T4..T5 and counts as body wait, so
    # body wait and service each take their share and the parts still add up to T6 - T1 exactly.
    def parts = { header_parse:, body_wait:, queue:, dispatch_to_call:, service:, respond: }
    def line = "request id=#{id} #{method} #{path} #{status} t1=#{t1} t2=#{t2} t2b=#{t2b} t3=#{t3} t4=#{t4} t5=#{t5} t6=#{t6} body_read=#{body_read}"
  end

  LOG_LINE = /\Apuma-plus: request id=(\S+) (\S+) (\S+) (\d{3}) t1=(\d+) t2=(\d+) t2b=(\d+) t3=(\d+) t4=(\d+) t5=(\d+) t6=(\d+) body_read=(\d+)\z/

  # Every request line the server printed so far.
  def self.records(server)
    server.output.lines(chomp: true).filter_map do |line|
      m = LOG_LINE.match(line) or next
      Record.new(id: m[1], method: m[2], path: m[3], status: Integer(m[4]),
                 t1: Integer(m[5]), t2: Integer(m[6]), t2b: Integer(m[7]), t3: Integer(m[8]),
                 t4: Integer(m[9]), t5: Integer(m[10]), t6: Integer(m[11]), body_read: Integer(m[12]))
    end
  end

  # The request line of /timing/TAG (the tag is in the path, so it matches whether or not the host logs
  # the query string).
  def self.tag_of(record)
    record.path[%r{\A/timing/([^/?]+)}, 1]
  end

  # Nearest-rank percentile (the value at rank ceil(p/100 * n) of the sorted values).
  def self.percentile(values, p)
    raise ArgumentError, "no values" if values.empty?

    sorted = values.sort
    sorted[[(p / 100.0 * sorted.size).ceil, 1].max - 1]
  end

  def self.median(values) = percentile(values, 50)

  def self.ms(ns) = (ns / 1e6).round(3)

  # Parses Prometheus text exposition into { "name{labels}" => Float } plus the TYPE of each family.
  Exposition = Struct.new(:samples, :types) do
    def [](key) = samples[key]

    # The samples of `name` whose labels include all of `labels` (a Hash), as { "labels" => value }.
    def series(name, **labels)
      samples.select do |key, _|
        key == name || key.start_with?("#{name}{") && labels.all? { |k, v| key.include?("#{k}=\"#{v}\"") }
      end
    end
  end

  def self.parse_exposition(text)
    samples = {}
    types = {}
    text.each_line(chomp: true) do |line|
      next if line.empty?

      if (m = /\A# TYPE (\S+) (\S+)\z/.match(line))
        types[m[1]] = m[2]
      elsif !line.start_with?("#")
        m = /\A(\S+?(?:\{.*\})?) (\S+)(?: \d+)?\z/.match(line) or raise "unparsable sample line #{line.inspect}"
        samples[m[1]] = { "+Inf" => Float::INFINITY, "-Inf" => -Float::INFINITY, "NaN" => Float::NAN }[m[2]] || Float(m[2])
      end
    end
    Exposition.new(samples, types)
  end

  # One exchange of the concurrent client: the bytes to send, and what came back, with client times in ns
  # (`sent_at` just before the first byte was written, `done_at` when the client's kernel received the
  # last byte, see ConcurrentClient#receive).
  # `port`, when set, is where the exchange connects instead of the client's port.
  Exchange = Struct.new(:tag, :bytes, :send_at, :port, :socket, :sent_at, :done_at, :buffer, :status, :headers,
                        :body, :error, keyword_init: true) do
    def elapsed = done_at - sent_at
    def header(name) = headers&.find { |k, _| k.casecmp?(name) }&.last
  end

  # Runs the block in a forked child and returns its (Marshal-able) result, so that a client's timestamps
  # never wait for the GVL behind this process's other threads (the server's output reader wakes up with
  # every log line, i.e. exactly when responses arrive), nor for a GC of the parent's heap (the child runs
  # with GC off: it allocates little). The child leaves with exit!, running no at_exit hook: the servers
  # belong to the parent.
  def self.in_child
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      GC.start
      GC.disable
      result = begin
        [:ok, yield]
      rescue Exception => e # rubocop:disable Lint/RescueException -- reported in the parent
        [:error, "#{e.class}: #{e.message}\n#{e.backtrace.first(8).join("\n")}"]
      end
      writer.write(Marshal.dump(result))
      writer.close
      exit!(0)
    end
    writer.close
    status, value = Marshal.load(reader.read)
    raise "in the client process: #{value}" unless status == :ok

    value
  ensure
    reader&.close
    Process.wait(pid) if pid
  end

  # Drives many connections from ONE Ruby thread (IO.select), so no GVL hand-off sits between a socket
  # becoming readable and its timestamp. Each exchange gets its own connection and one request, answered
  # with Content-Length (the probe app always sets it).
  class ConcurrentClient
    def initialize(port, host: "127.0.0.1")
      @host = host
      @port = port
    end

    # `exchanges`: Exchange list; one with `send_at` (ns) nil is sent at once, otherwise not before
    # `send_at` (open loop: arrivals never wait for responses). `connect_first: true` opens every
    # connection, and gives the host 100 ms to accept them, before the first byte is sent, so that
    # accepting is not part of any request's time.
    # Returns the exchanges once all are answered; raises after `timeout` seconds.
    def run(exchanges, timeout:, connect_first: false)
      deadline = Timing.now_ns + timeout * 1_000_000_000
      if connect_first
        exchanges.each { |e| e.socket = connect(e.port) }
        sleep 0.1 # let the host accept and set up every connection: accepting is not part of a request's time
        deadline += 100_000_000
      end
      pending = exchanges.sort_by { |e| e.send_at || 0 }
      open = {}
      until pending.empty? && open.empty?
        now = Timing.now_ns
        raise RawHttp::Timeout, "#{open.size + pending.size} exchanges unanswered: #{(open.values + pending).first(5).map(&:tag)}" if now > deadline

        while (e = pending.first) && (e.send_at.nil? || e.send_at <= now)
          pending.shift
          e.socket ||= connect(e.port)
          e.buffer = String.new(encoding: Encoding::BINARY)
          e.sent_at = Timing.now_ns
          e.socket.write(e.bytes)
          open[e.socket] = e
          now = Timing.now_ns
        end
        wait = pending.empty? ? 0.05 : [(pending.first.send_at - now) / 1e9, 0.05].min
        # (Assigned in every pass: a stale list from the last pass would name sockets closed since.)
        readable = open.any? ? IO.select(open.keys, nil, nil, [wait, 0].max)&.first : nil
        sleep([wait, 0].max) if open.empty? && wait.positive?
        (readable || []).each do |socket|
          e = open[socket]
          chunk, at = receive(socket)
          next if chunk == :wait_readable

          if chunk.nil?
            e.error = "connection closed after #{e.buffer.bytesize} bytes"
          else
            e.buffer << chunk
            next unless complete?(e)
          end
          e.done_at = at
          open.delete(socket)
          socket.close
        end
      end
      exchanges.each { |e| e.socket = nil } # closed; and a Socket cannot cross Timing.in_child
    end

    private

    def connect(port)
      socket = Socket.tcp(@host, port || @port, connect_timeout: 5)
      socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
      socket.setsockopt(Socket::SOL_SOCKET, Socket::SO_TIMESTAMPNS, 1) if defined?(Socket::SO_TIMESTAMPNS)
      socket
    end

    # One read: [bytes, ns] ([nil, ns] at EOF, [:wait_readable, nil] when there is nothing). The time is
    # when the kernel received the bytes (SO_TIMESTAMPNS, a CLOCK_REALTIME stamp moved to CLOCK_MONOTONIC
    # by the offset between the clocks read right now), so a client process that waits for a CPU before
    # it reads does not count as response time; without the stamp, the time of the read.
    def receive(socket)
      data, _addr, _flags, *controls = socket.recvmsg_nonblock(65_536, 0, nil, exception: false)
      return [:wait_readable, nil] if data == :wait_readable

      mono = Timing.now_ns
      stamp = controls.find { |c| c.cmsg_is?(:SOCKET, :TIMESTAMPNS) }&.timestamp
      return [data.nil? || data.empty? ? nil : data, mono] unless stamp

      real = Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond)
      [data.nil? || data.empty? ? nil : data, stamp.to_i * 1_000_000_000 + stamp.nsec - (real - mono)]
    end

    # Parses the response once its head and Content-Length bytes are in.
    def complete?(e)
      head_end = e.buffer.index("\r\n\r\n") or return false
      lines = e.buffer[0, head_end].split("\r\n")
      status_line = lines.shift
      headers = lines.map { |l| l.split(":", 2).map(&:strip) }
      length = headers.find { |k, _| k.casecmp?("Content-Length") }&.last
      raise "response without Content-Length: #{e.buffer[0, 300].inspect}" unless length
      return false if e.buffer.bytesize < head_end + 4 + Integer(length)

      e.status = Integer(status_line.split(" ", 3)[1])
      e.headers = headers
      e.body = e.buffer[head_end + 4, Integer(length)]
      true
    end
  end
end

# Base class of the timing tests: a server with `log_requests` (and, on request, `server_timing`) on.
class TimingTest < IntegrationTest
  # A config file in a fresh temp dir with `lines` (directives of docs/CONFIG.md); returns its path.
  def config_file(*lines)
    path = File.join(temp_dir, "puma-plus.rb")
    File.write(path, lines.map { |line| "#{line}\n" }.join)
    path
  end

  # Starts probe.ru with `log_requests` on (plus `extra` directives).
  def start_logging_server(workers:, threads:, extra: [])
    start_server(app("probe.ru"), workers: workers, threads: threads, config: config_file("log_requests", *extra))
  end

  # Waits until the host has logged a line for each tag (the line is printed after T6, so it may trail
  # the response) and returns { tag => Record }.
  def records_for(server, tags, timeout: 10)
    wanted = tags.to_a
    found = nil
    eventually(timeout: timeout, interval: 0.05) do
      found = Timing.records(server).to_h { |r| [Timing.tag_of(r), r] }.slice(*wanted)
      found.size == wanted.size
    end
    missing = wanted - found.keys
    assert_empty missing, with_log(server, "no 'puma-plus: request' line for #{missing.first(10).inspect}")
    found
  end

  # Open-loop arrivals for +server+: GET +target+ +rps+ times a second, evenly spaced from +start+ (ns) for
  # +seconds+, tagged TAG0, TAG1, ... (several servers' arrivals can share one ConcurrentClient run).
  def steady_arrivals(server, rps:, seconds:, target:, start:, tag: "step")
    (rps * seconds).round.times.map do |i|
      Timing::Exchange.new(tag: "#{tag}#{i}", port: server.port, send_at: start + (i * 1e9 / rps).round,
                           bytes: RawHttp.request("GET", target, {}, host: "127.0.0.1"))
    end
  end

  # Open-loop load on +server+ (steady_arrivals from 50 ms after the call), each request on its own
  # connection (ConcurrentClient, in a child process). Returns the exchanges once all are answered (the
  # first one's send_at is the load's start); raises after +timeout+ seconds.
  def offer(server, rps:, seconds:, target:, timeout: seconds + 30)
    load = steady_arrivals(server, rps: rps, seconds: seconds, target: target, start: Timing.now_ns + 50 * Timing::MS)
    client = Timing::ConcurrentClient.new(server.port)
    Timing.in_child { client.run(load, timeout: timeout) }
  end

  # `count` sequential GET /timing/warmN requests, so the JIT and both sides' caches are warm.
  def warm_up(server, count, ms: 0)
    count.times do |i|
      response = server.request("GET", "/timing/warm#{i}?ms=#{ms}")
      assert_equal 200, response.status, with_log(server, "warm-up request #{i}: #{response.status} #{response.body}")
    end
  end

  def control_get(server, path)
    Net::HTTP.get_response(server.control_uri(path))
  end

  def metrics(server)
    response = control_get(server, "/metrics")
    assert_equal "200", response.code, with_log(server, "GET /metrics: #{response.code} #{response.body}")
    response.body
  end

  # /metrics parsed, once the block accepts it: the histograms take in what was recorded at the next
  # once-a-second tick of the host, so a test waits (up to `timeout` s) for the counts it expects. Returns
  # the last exposition either way; the test's own assertions say what is wrong.
  def settled_metrics(server, timeout: 5)
    exposition = nil
    eventually(timeout: timeout, interval: 0.1) { yield(exposition = Timing.parse_exposition(metrics(server))) }
    exposition
  end

  # /stats' queue object, once the block accepts it (windows are built from completed seconds).
  def settled_queue_stats(server, timeout: 5)
    queue = nil
    eventually(timeout: timeout, interval: 0.1) { yield(queue = server.stats.fetch("queue")) }
    queue
  end
end
