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
  # Idle keep-alive connections, shared by every thread and fiber of the process: a call takes one (or opens
  # one when none is idle) and gives it back, so the process holds as many connections as it ever had calls
  # at once, and reuses them instead of opening one per request (1000 rps of new connections would use up
  # the loopback's ephemeral ports within a minute, and each connect costs the dependency too). No cap: what
  # bounds the calls in flight is the server (its threads, fiber slots and limit, or nothing), which is
  # what the benchmark compares.
  IDLE = Thread::Queue.new

  def self.call(env)
    case env["PATH_INFO"]
    when "/dep" then call_dependency
    when "/health" then [200, TEXT.dup, ["ok\n"]]
    else [404, TEXT.dup, ["not found: #{env['PATH_INFO']}\n"]]
    end
  end

  # A connection goes back to IDLE only after a whole response: one whose call failed or was interrupted
  # (a server's timeout raising into the fiber) may have a half-read response in it, so it is closed.
  def self.call_dependency
    http = checkout
    code = http.request(Net::HTTP::Get.new("/call")).code
    IDLE << http
    [code == "200" ? 200 : 502, TEXT.dup, ["dependency: #{code}\n"]]
  rescue StandardError => e # Errno::ECONNREFUSED, Net::ReadTimeout, EOFError, Errno::ECONNRESET, ...
    begin
      http&.finish
    rescue StandardError
      nil
    end
    [502, TEXT.dup, ["dependency call failed: #{e.class}\n"]]
  end

  def self.checkout
    IDLE.pop(true)
  rescue ThreadError # none idle
    connect
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
