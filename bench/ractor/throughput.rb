# frozen_string_literal: true

# What Ractor slots buy under load (docs/RACK.md, "Ractors"): examples/ractor/config.ru at -w 1 -t 2, with
# `ractors` and with threads, alternating, ROUNDS rounds. Nothing is pinned: what Ractors buy is a second
# core. Each run warms up for 3 s, then measures `h2load --h1 -c 4` for DURATION s on /mix/20/0 (20 ms of CPU
# per request: two slots allow 100 req/s in two Ractors and 50 in two threads under one GVL) and on /hello. Prints each run's req/s and the medians; run it on each Ruby to compare them:
#
#   ruby -Itest/integration bench/ractor/throughput.rb [ROUNDS]                        (default 5)
#   RUBY_YJIT_ENABLE=1 PATH=$PWD/build/ruby-3.3/bin:$PATH ruby -Itest/integration bench/ractor/throughput.rb
#
# Bounded: (2 × 3 + 2 × DURATION) s of load per run, plus boot and stop. Needs script/build and h2load.

require "server_helper"

ROUNDS = Integer(ENV.fetch("ROUNDS", ARGV.first || "5"))
DURATION = Integer(ENV.fetch("DURATION", "10"))
TARGETS = ["/mix/20/0", "/hello"].freeze

class RactorThroughput < IntegrationTest
  TEST_TIMEOUT = 1_800

  # The req/s h2load reports for `seconds` of `target` at 4 connections.
  def rate(server, target, seconds)
    out = IO.popen(["h2load", "--h1", "-c", "4", "-D", seconds.to_s,
                    "http://127.0.0.1:#{server.port}#{target}"], err: %i[child out], &:read)
    failed = out[/(\d+) failed/, 1].to_i
    raise "h2load #{target}: #{failed} failed\n#{out}" if failed.positive?

    Float(out[/finished in [\d.]+s, ([\d.]+) req\/s/, 1] || raise("no rate in h2load's output:\n#{out}"))
  end

  # Req/s per target of one run.
  def measure(ractors)
    config = File.join(temp_dir, "puma-plus.rb")
    File.write(config, ractors ? "ractors\n" : "\n")
    server = start_server(File.join(PumaPlusServer::ROOT, "examples/ractor/config.ru"),
                          workers: 1, threads: 2, config: config)
    eventually { server.stats.dig("queue", "live_slots") == 2 }
    TARGETS.map do |target|
      rate(server, target, 3)
      rate(server, target, DURATION)
    end
  ensure
    server&.stop
  end

  def test_print_ractor_and_thread_slots_under_load
    rows = { ractors: [], threads: [] }
    ROUNDS.times do |round|
      rows.each_key do |kind|
        rows[kind] << measure(kind == :ractors)
        puts format("round %d %-7s %s", round + 1, kind,
                    TARGETS.zip(rows[kind].last).map { |t, r| "#{t} #{r.round} req/s" }.join(", "))
      end
    end
    puts "#{RUBY_DESCRIPTION}: medians of #{ROUNDS}"
    rows.each do |kind, runs|
      puts format("  %-7s %s", kind, TARGETS.each_index.map do |i|
        values = runs.map { |r| r[i] }.sort
        "#{TARGETS[i]} #{values[values.size / 2].round} (#{values.first.round}-#{values.last.round}) req/s"
      end.join(", "))
    end
  end
end
