# The benchmark app every server in a bench run serves (bench/README.md): the same Rack app, so servers
# differ only in how they get requests to it. It sits at the very end of a request's path (app.call).
#   /hello                      a fixed short body: what is left is the server's own per-request cost
#   /mix/<cpu_ms>/<sleep_ms>    burn cpu_ms of this thread's CPU time, then sleep sleep_ms (a request that
#                               renders a little, then waits on a database or an API)
#   /health                     200 at once: what a load balancer's health check asks
# CPU is measured with CLOCK_THREAD_CPUTIME_ID, not counted in loop iterations, so "5 ms of CPU" is 5 ms
# that this thread actually ran, on any machine, however many other threads share the core or the GVL.
# Ractor-safe (puma-plus --ractors, docs/RACK.md "Ractors"): a module with frozen, shareable constants.

module BenchApp
  MIX = %r{\A/mix/(\d+)/(\d+)\z}
  TEXT = Ractor.make_shareable({ "Content-Type" => "text/plain" })
  HELLO = "Hello from the bench app\n".freeze

  # Spins until this thread has used `ms` milliseconds of CPU. Holds the GVL while it runs, like real Ruby
  # work; the clock is read every 500 additions so the overshoot stays in the microseconds.
  def self.burn_cpu(ms)
    return if ms <= 0

    clock = Process::CLOCK_THREAD_CPUTIME_ID
    deadline = Process.clock_gettime(clock, :nanosecond) + ms * 1_000_000
    sum = 0
    loop do
      500.times { |i| sum += i }
      break if Process.clock_gettime(clock, :nanosecond) >= deadline
    end
    sum
  end

  def self.call(env)
    path = env["PATH_INFO"]
    case path
    when "/hello"
      [200, TEXT.dup, [HELLO]]
    when "/health"
      [200, TEXT.dup, ["ok\n"]]
    when MIX
      cpu_ms = Integer(Regexp.last_match(1))
      sleep_ms = Integer(Regexp.last_match(2))
      burn_cpu(cpu_ms)
      sleep(sleep_ms / 1000.0) if sleep_ms.positive?
      [200, TEXT.dup, ["cpu=#{cpu_ms}ms sleep=#{sleep_ms}ms\n"]]
    else
      [404, TEXT.dup, ["not found: #{path}\n"]]
    end
  end
end

run BenchApp
