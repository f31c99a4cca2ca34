# frozen_string_literal: true

# A Ractor-safe Rack app (docs/RACK.md, "Ractors"): serve it with `puma-plus --ractors`, and every slot runs
# it in its own Ractor, so CPU-bound requests run in parallel instead of taking turns on one lock. What
# makes it safe: the app is an object with #call (not a lambda), every constant is deeply frozen, and no
# request writes to anything but its own locals.
#   /hello                      a fixed short body
#   /mix/<cpu_ms>/<sleep_ms>    burn cpu_ms of this thread's CPU time, then sleep sleep_ms (as bench/app)
#   /ractor                     which Ractor served the request

class RactorApp
  MIX = %r{\A/mix/(\d+)/(\d+)\z}.freeze
  TEXT = Ractor.make_shareable({ "content-type" => "text/plain" })
  HELLO = "Hello from a Ractor\n"

  # Spins until this thread has used +ms+ milliseconds of CPU (CLOCK_THREAD_CPUTIME_ID, as bench/app).
  def burn_cpu(ms)
    clock = Process::CLOCK_THREAD_CPUTIME_ID
    deadline = Process.clock_gettime(clock, :nanosecond) + ms * 1_000_000
    sum = 0
    loop do
      500.times { |i| sum += i }
      break if Process.clock_gettime(clock, :nanosecond) >= deadline
    end
    sum
  end

  def call(env)
    path = env["PATH_INFO"]
    case path
    when "/hello"
      [200, TEXT.dup, [HELLO]]
    when "/ractor"
      [200, TEXT.dup, ["#{Ractor.current.name || Ractor.current.inspect} in pid #{Process.pid}\n"]]
    when MIX
      cpu_ms = Integer(Regexp.last_match(1))
      sleep_ms = Integer(Regexp.last_match(2))
      burn_cpu(cpu_ms) if cpu_ms.positive?
      sleep(sleep_ms / 1000.0) if sleep_ms.positive?
      [200, TEXT.dup, ["cpu=#{cpu_ms}ms sleep=#{sleep_ms}ms\n"]]
    else
      [404, TEXT.dup, ["not found: #{path}\n"]]
    end
  end
end

run RactorApp.new
