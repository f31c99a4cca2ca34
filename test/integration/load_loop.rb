# Steady load for the lifecycle tests (hot restart, phased restart, config reload): a fixed request rate,
# spread over client threads that keep one connection alive and threads that open a new connection per
# request, counting every response that is not 2xx and every connection error as a failure. Bounded: it
# runs until #stop and only against 127.0.0.1.
require "net/http"

class LoadLoop
  Result = Struct.new(:ok, :failures, :pids, keyword_init: true)

  # +port+: the server; +rps+: requests per second in total; +path+: what every request GETs (the probe
  # app's /sleep answers "id pid"); +clients+: threads, half keep-alive, half new connection each time.
  def initialize(port, rps: 100, path: "/sleep?ms=10", clients: 4)
    @port = port
    @interval = clients.to_f / rps
    @path = path
    @clients = clients
    @lock = Mutex.new
    @ok = 0
    @failures = []
    @pids = []
    @running = true
  end

  def start
    @threads = Array.new(@clients) { |i| Thread.new { run(keep_alive: i.even?) } }
    self
  end

  # Stops the clients after their current request; returns the Result.
  def stop
    @running = false
    @threads.each { |t| t.join(30) }
    @lock.synchronize { Result.new(ok: @ok, failures: @failures.dup, pids: @pids.dup) }
  end

  # Successful requests so far.
  def ok
    @lock.synchronize { @ok }
  end

  private

  def run(keep_alive:)
    http = nil
    next_at = monotonic
    while @running
      begin
        http = nil unless keep_alive
        http ||= connect
        response = http.request(Net::HTTP::Get.new(@path))
        if response.code.start_with?("2")
          @lock.synchronize { @ok += 1; @pids << response.body.split.last.to_i }
        else
          record("HTTP #{response.code}: #{response.body.to_s[0, 200]}")
        end
      rescue StandardError => e
        record("#{e.class}: #{e.message}")
        http = nil
      ensure
        http&.finish if !keep_alive && http&.started?
      end
      next_at += @interval
      delay = next_at - monotonic
      delay.positive? ? sleep(delay) : next_at = monotonic
    end
  ensure
    http&.finish if http&.started?
  end

  def connect
    http = Net::HTTP.new("127.0.0.1", @port)
    http.max_retries = 0 # a retried request would hide a failure
    http.open_timeout = 5
    http.read_timeout = 15
    http.start
  end

  def record(what)
    @lock.synchronize { @failures << what }
  end

  def monotonic
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
