# The slow-dependency benchmark's app (bench/scenarios/slowdep.scenario, issue 31): every request calls a
# service the harness runs on loopback (bench/loadgen's DependencyServer, at BENCH_DEPENDENCY=host:port),
# which serves only so many calls at once. It sits at the end of a request's path (app.call) and waits
# there, on the dependency, the way an app waits on its database or an API.
#   /dep      one GET http://BENCH_DEPENDENCY/call, then 200 "dependency: 200"; 502 when the call fails
#   /health   200 at once (the harness's readiness check)
# A separate app from config.ru because its connection pool is shared mutable state: it is not
# Ractor-safe, and config.ru stays so. Net::HTTP works unchanged under threads (it releases the GVL while
# it waits) and under a fiber scheduler (puma-plus fiber slots, async-http: its connects, reads and writes
# wait through the scheduler).

require "net/http"

module BenchDependencyApp
  TEXT = { "Content-Type" => "text/plain" }.freeze
  HOST, PORT = ENV.fetch("BENCH_DEPENDENCY") { abort "bench/app/dependency.ru: set BENCH_DEPENDENCY=host:port" }.split(":", 2)
  # Keep-alive connections shared by every thread and fiber of the process, as an app's HTTP client or
  # database pool is: a call takes one and gives it back, so connections are reused instead of opened per
  # request (1000 rps of new connections would use up the loopback's ephemeral ports within a minute). The
  # queue holds POOL_SIZE tokens, each nil until its connection is first needed (and again after a call on
  # it failed). 128 (BENCH_DEPENDENCY_POOL) is puma-plus's fiber slots and four times puma's 32 threads, so
  # the pool never binds for a server that bounds its own concurrency; for one that does not (async-http)
  # it binds at 128 calls, and the rest wait here for a connection, as they would in a real app. Without a
  # cap such a server opened a connection per waiting call: 10,000 in one run, until accept(2) failed with
  # EMFILE.
  POOL_SIZE = Integer(ENV.fetch("BENCH_DEPENDENCY_POOL", "128"))
  POOL = Thread::Queue.new
  POOL_SIZE.times { POOL << nil }

  def self.call(env)
    case env["PATH_INFO"]
    when "/dep" then call_dependency
    when "/health" then [200, TEXT.dup, ["ok\n"]]
    else [404, TEXT.dup, ["not found: #{env['PATH_INFO']}\n"]]
    end
  end

  # A connection goes back into the pool only after a whole response: one whose call failed, or was cut
  # short by an exception the server raised into the request, may hold half a response, so it is closed
  # and its token goes back empty. The token always goes back.
  def self.call_dependency
    http = POOL.pop
    reusable = nil
    begin
      http ||= connect
      code = http.request(Net::HTTP::Get.new("/call")).code
      reusable = http
      [code == "200" ? 200 : 502, TEXT.dup, ["dependency: #{code}\n"]]
    rescue StandardError => e # Errno::ECONNREFUSED, Net::ReadTimeout, EOFError, Errno::ECONNRESET, ...
      [502, TEXT.dup, ["dependency call failed: #{e.class}\n"]]
    ensure
      close(http) unless reusable
      POOL << reusable
    end
  end

  def self.close(http)
    http&.finish
  rescue StandardError # not started, or already broken
    nil
  end

  # The read timeout is longer than the generator's 5 s: a call that slow has already failed at the client,
  # and the benchmark counts that there, not here. keep_alive_timeout: Net::HTTP reconnects a connection idle
  # longer than this (default 2 s); the dependency never closes an idle one, so reuse it.
  def self.connect
    http = Net::HTTP.new(HOST, Integer(PORT))
    http.open_timeout = 2
    http.read_timeout = 10
    http.keep_alive_timeout = 60
    http.start
  end
end

run BenchDependencyApp
