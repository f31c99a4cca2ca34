# frozen_string_literal: true

# The Ruby worker's own cost per request, without the Java host: a forked stand-in host drives real
# Worker::Link threads (or, with --fibers, fiber slots: links run as tasks of a Worker::FiberReactor, as
# `fibers N` runs them) over socket pairs with the REQUEST a keep-alive `wrk` sends for /hello (or
# --path), closed loop, and this process counts what it spent per request: CPU
# (CLOCK_PROCESS_CPUTIME_ID), allocated objects, GC runs, context switches, and with --strace the syscalls
# of its threads. The stand-in host is another process, so none of its work is counted.
# docs/benchmarks/NOTEBOOK.md, "Worker cost", has the numbers.
#
#   ruby bench/worker_cost.rb [--links N] [--fibers] [--path /mix/0/1] [--requests N] [--rounds N] [--strace]
#                             [--gem DIR]
#
# --gem points at another checkout's gem/ directory (an A/B run against an older commit); a worker runs
# the C codec when gem/lib/puma_plus/wire/native_codec.so is there (script/build), else the Ruby one.

require "optparse"

options = { links: 1, fibers: false, path: "/hello", requests: 20_000, rounds: 5, strace: false,
            gem: File.expand_path("../gem", __dir__) }
OptionParser.new do |opts|
  opts.on("--links N", Integer, "worker links (slot threads), each with a request in flight") { |v| options[:links] = v }
  opts.on("--fibers", "the links are fiber slots of one thread (`fibers N`), not threads") { options[:fibers] = true }
  opts.on("--path PATH", "what every REQUEST asks bench/app for (default /hello)") { |v| options[:path] = v }
  opts.on("--requests N", Integer, "requests per round") { |v| options[:requests] = v }
  opts.on("--rounds N", Integer, "measured rounds (after one warm-up round)") { |v| options[:rounds] = v }
  opts.on("--strace", "count the worker threads' syscalls over the measured rounds") { options[:strace] = true }
  opts.on("--gem DIR", "the gem/ directory whose worker to measure") { |v| options[:gem] = File.expand_path(v) }
end.parse!

$LOAD_PATH.unshift File.join(options[:gem], "lib")
require "socket"
require "puma_plus/wire"
require "puma_plus/worker"

Wire = PumaPlus::Wire
APP = Rack::Builder.parse_file(File.expand_path("app/config.ru", __dir__)).then { |app| app.is_a?(Array) ? app.first : app }
# The REQUEST the host sends for `wrk http://127.0.0.1:9292/hello` (wrk sends only a Host header).
REQUEST = Wire::Request.new(
  headers_parsed_ns: 1_000, runnable_ns: 2_000, dispatched_ns: 3_000,
  pairs: [%w[REQUEST_METHOD GET], ["SCRIPT_NAME", ""], ["PATH_INFO", options[:path]], ["QUERY_STRING", ""],
          %w[SERVER_NAME 127.0.0.1], %w[SERVER_PORT 9292], %w[SERVER_PROTOCOL HTTP/1.1],
          %w[REMOTE_ADDR 127.0.0.1], %w[rack.url_scheme http], %w[HTTP_HOST 127.0.0.1:9292],
          %w[puma_plus.request_id 1]]
).encode(Wire::Frame::END_STREAM)

# The stand-in host: answers each HELLO, then for every count it is sent keeps one request in flight on
# every link until that many responses came back, and reports each round's end with one byte.
def host(sockets, go, done)
  sockets.each do |socket|
    Wire::Frame.read(socket)
    socket.write(Wire::Welcome.new(version: Wire::VERSION, link_id: 1).encode)
  end
  while (command = go.read(8))
    remaining = command.unpack1("Q>") - sockets.size
    in_flight = sockets.size
    sockets.each { |socket| socket.write(REQUEST) }
    while in_flight.positive?
      IO.select(sockets)[0].each do |socket|
        loop { break if Wire::Frame.read(socket).end_stream? }
        in_flight -= 1
        next unless remaining.positive?

        socket.write(REQUEST)
        in_flight += 1
        remaining -= 1
      end
    end
    done.write(".")
  end
end

def context_switches
  Dir["/proc/self/task/*/status"].sum do |path|
    File.read(path).scan(/voluntary_ctxt_switches:\s+(\d+)/).sum { |(n)| n.to_i }
  rescue Errno::ENOENT
    0
  end
end

pairs = Array.new(options[:links]) { UNIXSocket.pair }
go_reader, go_writer = IO.pipe
done_reader, done_writer = IO.pipe
host_pid = fork do
  go_writer.close
  done_reader.close
  pairs.each { |worker_end, _| worker_end.close }
  host(pairs.map(&:last), go_reader, done_writer)
  exit!(0)
end
go_reader.close
done_writer.close
prototype = PumaPlus::RackEnv.prototype(multithread: options[:links] > 1, multiprocess: false,
                                        slot_kind: options[:fibers] ? PumaPlus::RackEnv::FIBER : PumaPlus::RackEnv::THREAD)
if options[:fibers]
  require "puma_plus/worker/fiber_reactor"
  reactor = PumaPlus::Worker::FiberReactor.new(log: $stderr, context: "worker_cost").start
end
pairs.each_with_index do |(worker_end, host_end), index|
  host_end.close
  serve = lambda do
    PumaPlus::Worker::Link.new(app: APP, prototype: prototype, worker_index: 0, thread_index: index,
                               io: worker_end, log: $stderr).run
  end
  reactor ? reactor.spawn(&serve) : Thread.new(&serve)
end

round = lambda do |count|
  GC.start
  before = [Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID), GC.stat(:total_allocated_objects), GC.count,
            context_switches]
  go_writer.write([count].pack("Q>"))
  done_reader.read(1)
  after = [Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID), GC.stat(:total_allocated_objects), GC.count,
           context_switches]
  cpu, objects, gcs, switches = after.zip(before).map { |a, b| a - b }
  { cpu_us: cpu * 1e6 / count, objects: objects.to_f / count, gcs_per_1000: gcs * 1000.0 / count,
    switches: switches.to_f / count }
end

round.call([options[:requests] / 5, 1_000].max) # warm-up
if options[:strace]
  trace = File.join(Dir.tmpdir, "worker_cost.#{Process.pid}.strace")
  tids = Dir["/proc/self/task/*"].map { |task| File.basename(task) }.join(",")
  strace = spawn("strace", "-f", "-c", "-o", trace, "-p", tids, err: File::NULL)
  sleep 1.5 # strace attaches to every thread
end
rounds = Array.new(options[:rounds]) { round.call(options[:requests]) }
codec = Wire::PairList.const_defined?(:CODEC) ? Wire::PairList::CODEC.name.split("::").last : "(before the codec split)"
cpu = rounds.map { |r| r[:cpu_us] }.sort
puts format("%d %s, %s, %s: worker CPU per request median %.1f µs, min %.1f µs (rounds: %s)", options[:links],
            options[:fibers] ? "fiber slots" : "links", options[:path], codec,
            cpu[cpu.size / 2], cpu.first, rounds.map { |r| format("%.1f", r[:cpu_us]) }.join(" "))
last = rounds.last
puts format("allocated objects per request %.1f, GC runs per 1000 requests %.2f, context switches per request %.2f",
            last[:objects], last[:gcs_per_1000], last[:switches])
if options[:strace]
  Process.kill(:INT, strace)
  Process.wait(strace)
  total = options[:requests] * options[:rounds]
  File.readlines(trace).grep(/\A\s*\d/).each do |line|
    fields = line.split
    next if fields.last == "total" || fields[3].to_f / total < 0.01

    puts format("  %-16s %6.2f per request", fields.last, fields[3].to_f / total)
  end
end
Process.kill(:KILL, host_pid)
Process.wait(host_pid)
reactor&.stop # the links read EOF from the killed host and end, then the reactor
