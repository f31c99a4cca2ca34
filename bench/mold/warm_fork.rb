# What a mold buys (fork_worker, docs/CONFIG.md "fork_worker and the mold"), on the Rails example's rows
# page: a worker forked by the shepherd from the preloaded app against one forked by the mold, a worker that
# had served requests. Per round, two servers, each `-w 1 -t 1` with preload_app! (as examples/rails), the
# second with `fork_worker 0`, alternating:
#   1. warm: WARM requests, one after another; the last 100's service time (Server-Timing app;dur) is the
#      warm worker's;
#   2. a new worker for index 0: a phased restart (USR1) on the first server (forked by the shepherd), a
#      refork (URG) on the second (forked by the mold); its first 100 requests' service time;
#   3. one worker more (TTIN): the time from the signal until its slot is live in /stats, forked by the shepherd
#      or by the mold;
#   4. PSS of each worker process (/proc/PID/smaps_rollup), the mold's counted apart.
# Server tree on CPU 0, this client on CPU 1. Prints each round and the medians [lowest–highest].
#
#   taskset -c 1 ruby bench/mold/warm_fork.rb [--rounds 5] [--warm 300]
require "json"
require "net/http"
require "optparse"
require "tmpdir"
require "fileutils"

ROOT = File.expand_path("../..", __dir__)
EXE = File.join(ROOT, "gem/exe/puma-plus")
rounds = 5
warm = 300
OptionParser.new do |o|
  o.on("--rounds N", Integer) { |v| rounds = v }
  o.on("--warm N", Integer) { |v| warm = v }
end.parse!

def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def median(values) = values.sort[values.size / 2]

def spread(values, unit, digits = 1)
  s = values.sort
  format("%.#{digits}f %s [%.#{digits}f–%.#{digits}f]", median(s), unit, s.first, s.last)
end

# One server of the example under a config of its own; yields [port, control port, token, host pid, dir].
def with_server(fork_worker, dir)
  config = File.join(dir, "puma-plus.rb")
  File.write(config, <<~RUBY)
    workers 1
    threads 1, 1
    preload_app!
    server_timing
    #{'fork_worker 0' if fork_worker}
    before_fork { ActiveRecord::Base.connection_pool.disconnect! }
    #{'before_refork { ActiveRecord::Base.connection_pool.disconnect! }' if fork_worker}
    on_worker_boot { ActiveRecord::Base.establish_connection }
  RUBY
  log = File.join(dir, "server.log")
  env = { "RAILS_ENV" => "production", "RAILS_LOG_LEVEL" => "warn", "DATABASE_PATH" => File.join(dir, "rows.sqlite3") }
  system(env, RbConfig.ruby, File.join(ROOT, "bench/rails_rows.rb"), "20", out: File::NULL) or abort "rails_rows failed"
  pid = Process.spawn(env, "taskset", "-c", "0", EXE, "-C", config, "-b", "tcp://127.0.0.1:0", "--control-url",
                      "tcp://127.0.0.1:0", File.join(ROOT, "examples/rails/config.ru"),
                      chdir: File.join(ROOT, "examples/rails"), out: log, err: log, pgroup: true)
  deadline = monotonic + 60
  until (text = File.read(log)) =~ /ready, \d+ slots/ && text =~ /control app token: (\h+)/
    abort "server did not start:\n#{text}" if monotonic > deadline
    sleep 0.1
  end
  port = text[%r{listening on http://127\.0\.0\.1:(\d+)}, 1].to_i
  control = text[%r{control app on http://127\.0\.0\.1:(\d+)}, 1].to_i
  token = text[/control app token: (\h+)/, 1]
  yield port, control, token, pid, log
ensure
  if pid
    Process.kill("TERM", pid)
    Process.wait(pid)
  end
end

def app_ms(http)
  response = http.get("/")
  raise "status #{response.code}" unless response.code == "200"

  response["Server-Timing"][/app;dur=([\d.]+)/, 1].to_f
end

def stats(control, token)
  JSON.parse(Net::HTTP.get(URI("http://127.0.0.1:#{control}/stats?token=#{token}")))
end

def await(log, pattern, count: 1, timeout: 60)
  deadline = monotonic + timeout
  sleep 0.01 until File.read(log).scan(pattern).size >= count || monotonic > deadline
  abort "no #{pattern.inspect} in #{log}:\n#{File.read(log)}" if File.read(log).scan(pattern).size < count
end

def pss_kb(pid)
  File.read("/proc/#{pid}/smaps_rollup")[/^Pss:\s+(\d+)/, 1].to_i
rescue Errno::ENOENT
  0
end

def processes(host_pid, title)
  Dir["/proc/[0-9]*/cmdline"].filter_map do |path|
    pid = path[%r{/proc/(\d+)/}, 1].to_i
    next unless (File.read(path) rescue "").include?(title)

    pgrp = File.read("/proc/#{pid}/stat").split(") ", 2).last.split(" ")[2].to_i rescue nil
    pid if pgrp == host_pid
  end
end

results = Hash.new { |h, k| h[k] = Hash.new { |hh, kk| hh[kk] = [] } }
rounds.times do |round|
  [false, true].each do |mold|
    name = mold ? "mold" : "shepherd"
    Dir.mktmpdir("puma-plus-mold-bench") do |dir|
      with_server(mold, dir) do |port, control, token, host_pid, log|
        http = Net::HTTP.start("127.0.0.1", port)
        warm_ms = Array.new(warm) { app_ms(http) }.last(100)
        Process.kill(mold ? "URG" : "USR1", host_pid)
        await(log, mold ? /refork done/ : /phased restart done/)
        first_ms = Array.new(100) { app_ms(http) }
        before = stats(control, token).dig("queue", "live_slots") || 1
        t0 = monotonic
        Process.kill("TTIN", host_pid)
        sleep 0.002 until (stats(control, token).dig("queue", "live_slots") || 0) > before || monotonic > t0 + 60
        add_ms = (monotonic - t0) * 1000
        20.times { app_ms(http) } # both workers serve a little before PSS is read
        workers = processes(host_pid, "puma-plus: worker")
        molds = processes(host_pid, "puma-plus: mold")
        r = results[name]
        r[:warm] << median(warm_ms)
        r[:first] << median(first_ms)
        r[:first_mean] << first_ms.sum / first_ms.size
        r[:add] << add_ms
        r[:pss] << workers.sum { |pid| pss_kb(pid) } / 1024.0 / workers.size
        r[:mold_pss] << molds.sum { |pid| pss_kb(pid) } / 1024.0
        printf("round %d %-8s warm %.2f ms, first 100 %.2f ms (mean %.2f), add -> live %.0f ms, PSS per worker %.1f MB%s\n",
               round + 1, name, r[:warm].last, r[:first].last, r[:first_mean].last, add_ms, r[:pss].last,
               mold ? format(", mold %.1f MB", r[:mold_pss].last) : "")
        http.finish
      end
    end
  end
end

puts
puts "| worker forked by | warm service (median of the last 100) | first 100 after the fork: median / mean | first ÷ warm | TTIN → slot live | PSS per worker |"
puts "| --- | --: | --: | --: | --: | --: |"
results.each do |name, r|
  ratios = r[:first].zip(r[:warm]).map { |f, w| f / w }
  puts "| #{name} | #{spread(r[:warm], 'ms', 2)} | #{spread(r[:first], 'ms', 2)} / #{spread(r[:first_mean], 'ms', 2)} | " \
       "#{spread(ratios, '×', 2)} | #{spread(r[:add], 'ms', 0)} | #{spread(r[:pss], 'MB')} |"
end
puts "mold process PSS: #{spread(results['mold'][:mold_pss], 'MB')}" if results.key?("mold")
