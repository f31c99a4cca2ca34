#!/usr/bin/env ruby
# frozen_string_literal: true

# What one more unit of capacity costs on this machine (docs/RACK.md, "Ractors"): +1 Ractor slot, +1 thread
# slot, +1 forked worker process. For each kind it runs the real shepherd (gem/exe/puma-plus-shepherd) with
# the app examples/ractor/config.ru preloaded (spawned as the host spawns it), against a stand-in host on a
# unix socket that speaks the wire protocol with the gem's own codec, and adds SAMPLES units one at a time:
#   - Ractor / thread slot: EXTRA_SLOTS(n + 1) (shepherd started with/without --ractors, -w 1 -t 1);
#   - forked worker: WORKER_COUNT(n + 1) (-w 1 -t 1).
# Spawn time: from the frame's write to the new slot's HELLO arriving (the link dialled in).
# Memory: the new unit serves one GET /hello, then after SETTLE s the PSS of the shepherd and all its
# workers (/proc/PID/smaps_rollup, summed) is read again; the delta is the unit's cost.
# Prints every sample and the median per kind. Bounded: each kind stops within DEADLINE s; the shepherd
# is sent GOAWAY(0), then KILL if it has not exited 5 s later.
#
#   ruby bench/ractor/spawn_and_memory.rb [SAMPLES]     (default 7)

require "socket"
require "tmpdir"
require "timeout"
require "rbconfig"

ROOT = File.expand_path("../..", __dir__)
$LOAD_PATH.unshift File.join(ROOT, "gem/lib")
require "puma_plus/wire"

Wire = PumaPlus::Wire
SHEPHERD = File.join(ROOT, "gem/exe/puma-plus-shepherd")
APP = File.join(ROOT, "examples/ractor/config.ru")
SAMPLES = Integer(ARGV.fetch(0, "7"))
SETTLE = 0.3 # seconds after a unit's first request before its memory is read
DEADLINE = 60 # seconds per kind

def monotonic
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

# kB of PSS of +pid+ and every process below it.
def tree_pss_kb(pid)
  children = Dir["/proc/[0-9]*/stat"].filter_map do |stat|
    fields = File.read(stat).split(") ").last.split
    File.basename(File.dirname(stat)).to_i if fields[1].to_i == pid
  rescue SystemCallError
    nil
  end
  [pid, *children].sum do |p|
    File.read("/proc/#{p}/smaps_rollup")[/^Pss:\s+(\d+) kB/, 1].to_i
  rescue SystemCallError
    0
  end
end

# The host end of one link: handshake, and one GET on a worker link.
class Link
  attr_reader :hello

  def initialize(io)
    @io = io
    frame = Wire::Frame.read(@io)
    raise "expected HELLO, got #{frame&.type_name.inspect}" unless frame&.type == Wire::FrameType::HELLO

    @hello = Wire.decode(frame)
    @io.write(Wire::Welcome.new(version: Wire::VERSION, link_id: 1).encode)
  end

  def write(payload)
    @io.write(payload.encode)
  end

  def read_frame
    Wire::Frame.read(@io)
  end

  def get(path)
    now = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    pairs = { "REQUEST_METHOD" => "GET", "SCRIPT_NAME" => "", "PATH_INFO" => path, "QUERY_STRING" => "",
              "SERVER_NAME" => "localhost", "SERVER_PORT" => "9292", "SERVER_PROTOCOL" => "HTTP/1.1",
              "REMOTE_ADDR" => "127.0.0.1", "rack.url_scheme" => "http" }
    write_request = Wire::Request.new(headers_parsed_ns: now, runnable_ns: now, dispatched_ns: now, pairs: pairs.to_a)
    @io.write(write_request.encode(Wire::Frame::END_STREAM))
    head = Wire.decode(read_frame)
    frame = read_frame until frame&.end_stream? || head.nil?
    head.status
  end
end

# One kind of unit: start a shepherd, add SAMPLES units, return [[spawn ms, PSS kB], ...].
def measure(kind)
  dir = Dir.mktmpdir("puma-plus-bench-ractor-")
  server = UNIXServer.new(File.join(dir, "link.sock"))
  argv = ["--preload", "-w", "1", "-t", "1", "-e", "production", APP]
  argv.unshift("--ractors") if kind == :ractor
  env = { "PUMA_PLUS_LINK" => File.join(dir, "link.sock"), "RACK_ENV" => nil, "WEB_CONCURRENCY" => nil,
          "PUMA_MAX_THREADS" => nil, "RAILS_MAX_THREADS" => nil, "PORT" => nil }
  pid = Process.spawn(env, RbConfig.ruby, "-I#{File.join(ROOT, 'gem/lib')}", SHEPHERD, *argv, chdir: dir,
                      %i[out err] => [File.join(dir, "log"), "w"])
  samples = []
  links = [] # held open: a link the host closes is dialled again, and would be taken for a new unit
  Timeout.timeout(DEADLINE) do
    shepherd = Link.new(server.accept)
    raise "expected CONFIG" unless shepherd.read_frame&.type == Wire::FrameType::CONFIG

    links << Link.new(server.accept)
    links.last.get("/hello")
    sleep SETTLE
    SAMPLES.times do |i|
      before = tree_pss_kb(pid)
      started = monotonic
      shepherd.write(kind == :fork ? Wire::WorkerCount.new(count: i + 2) : Wire::ExtraSlots.new(count: i + 1))
      link = Link.new(server.accept)
      links << link
      spawn_ms = (monotonic - started) * 1000
      link.get("/hello")
      sleep SETTLE
      samples << [spawn_ms, tree_pss_kb(pid) - before]
      puts format("  %-6s #%d  spawn %7.1f ms  PSS %+7d kB  (thread index %d, worker %d)", kind, i + 1, spawn_ms,
                  samples.last[1], link.hello.thread_index, link.hello.worker_index)
    end
    shepherd.write(Wire::GoAway.new(code: 0, reason: "bench done"))
  end
  samples
rescue StandardError
  warn File.read(File.join(dir, "log")) if dir && File.exist?(File.join(dir, "log"))
  raise
ensure
  if pid
    Process.kill("KILL", pid) unless (Timeout.timeout(5) { Process.wait(pid) } rescue nil)
    Process.wait(pid) rescue nil
  end
  server&.close
  FileUtils.rm_rf(dir) if dir
end

def median(values)
  sorted = values.sort
  mid = sorted.size / 2
  sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
end

puts "ruby #{RUBY_VERSION}p#{RUBY_PATCHLEVEL}, #{SAMPLES} units of each kind, app #{APP.sub("#{ROOT}/", '')} (preloaded)"
results = %i[ractor thread fork].to_h { |kind| [kind, measure(kind)] }
puts
puts "unit           spawn to dialled in (median)   PSS per unit (median)"
results.each do |kind, samples|
  puts format("+1 %-12s %10.1f ms %25d kB", { ractor: "Ractor slot", thread: "thread slot", fork: "worker" }[kind],
              median(samples.map(&:first)), median(samples.map(&:last)))
end
