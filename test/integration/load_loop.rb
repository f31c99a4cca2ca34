# Steady load for the lifecycle tests (hot restart, phased restart, config reload): a fixed request rate,
# spread over client threads that keep one connection alive and threads that open a new connection per
# request, counting every response that is not 2xx and every connection error as a failure. Bounded: it
# runs until #stop and only against 127.0.0.1. Each request carries its own `id=` (client-number), and its
# Outcome is kept, so a test can match requests with what the probe app logged (`?log=PATH`).
require "net/http"

class LoadLoop
  Result = Struct.new(:ok, :failures, :pids, :outcomes, keyword_init: true)
  # One request: its id, the HTTP status (Integer) or the error ("Class: message"), and when it was sent
  # and answered (CLOCK_MONOTONIC seconds).
  Outcome = Struct.new(:id, :status, :sent_at, :answered_at)

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
    @outcomes = []
    @running = true
  end

  def start
    @threads = Array.new(@clients) { |i| Thread.new { run(keep_alive: i.even?, client: i) } }
    self
  end

  # Stops the clients after their current request; returns the Result.
  def stop
    @running = false
    @threads.each { |t| t.join(30) }
    @lock.synchronize { Result.new(ok: @ok, failures: @failures.dup, pids: @pids.dup, outcomes: @outcomes.dup) }
  end

  # Successful requests so far.
  def ok
    @lock.synchronize { @ok }
  end

  private

  def run(keep_alive:, client:)
    http = nil
    next_at = monotonic
    separator = @path.include?("?") ? "&" : "?"
    count = 0
    while @running
      outcome = Outcome.new("c#{client}-#{count += 1}", nil, monotonic, nil)
      begin
        http = nil unless keep_alive
        http ||= connect
        response = http.request(Net::HTTP::Get.new("#{@path}#{separator}id=#{outcome.id}"))
        outcome.status = Integer(response.code)
        if response.code.start_with?("2")
          @lock.synchronize { @ok += 1; @pids << response.body.split.last.to_i }
        else
          record("HTTP #{response.code}: #{response.body.to_s[0, 200]}")
        end
      rescue StandardError => e
        outcome.status = "#{e.class}: #{e.message}"
        record(outcome.status)
        http = nil
      ensure
        outcome.answered_at = monotonic
        @lock.synchronize { @outcomes << outcome }
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
