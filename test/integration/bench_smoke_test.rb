# The benchmark harness's smoke run (bench/scenarios/smoke.scenario): `bench/run smoke` starts puma-plus and
# Debian's puma one after another on the same Rack app, drives each with the open-loop generator for a few
# seconds, and writes the report. A few seconds of load, not a measurement: this proves the whole chain
# (pinning, warm-up, load, health probe, /stats sampling, table, timeline, plot, raw CSV) works end to end.
# The same for the two round benchmarks (bench/scenarios/capacity.scenario, closed loop under wrk and, over h2,
# h2load; lowrate.scenario, open loop) with a second or two per cell: their tables, CPU split and ratios, and
# puma's skipped h2 cells, not their numbers.
require "server_helper"
require "csv"

class BenchSmokeTest < IntegrationTest
  TEST_TIMEOUT = 180 # two server boots (puma-plus ~5-10 s on a loaded machine) and 2 x 5 s of load
  ROOT = PumaPlusServer::ROOT
  PNG_MAGIC = "\x89PNG\r\n\x1a\n".b

  def test_smoke_scenario_reports_puma_plus_and_puma_side_by_side
    require_harness(%w[puma taskset setsid])

    out = File.join(temp_dir, "smoke")
    output, status = run_harness("smoke", "--out", out)
    assert status&.success?, "bench/run smoke failed (#{status.inspect}):\n#{output}"

    summary = File.read(File.join(out, "summary.md"))
    rows = summary.lines.select { |l| l.start_with?("| puma") }.to_h { |l| [l.split("|")[1].strip, l] }
    assert_equal %w[puma-plus puma], rows.keys, "one table row per server, in the scenario's order:\n#{summary}"

    %w[puma-plus puma].each do |server|
      requests = CSV.read(File.join(out, "#{server}-r1.requests.csv"), headers: true)
      load = requests.select { |r| r["kind"] == "load" }
      probes = requests.select { |r| r["kind"] == "probe" }
      assert_operator load.size, :>, 100, "#{server}: ~200 Poisson arrivals expected in 4 s at 50 rps"
      assert load.all? { |r| r["outcome"] == "ok" && r["status"] == "200" }, "#{server}: every request answered 200 at this light load"
      assert load.all? { |r| Float(r["latency_ms"]) >= Float(r["sent_ms"]) - Float(r["intended_ms"]) },
             "#{server}: latency counts from the intended start, so it includes any send lag"
      assert_equal 4, probes.size, "#{server}: one health probe per second"
    end

    timeline = File.read(File.join(out, "timeline.txt"))
    plus, puma = timeline.split(/^puma\n/).map { |block| block.lines.drop(1).map(&:split).reject(&:empty?) }
    queue_column = 9 # t offered sent rps p50 p99 errors procs mem queue_p95 ...
    assert plus.any? { |row| Float(row[queue_column], exception: false) },
           "puma-plus: queue p95 read from its own /stats in some second:\n#{timeline}"
    assert puma.all? { |row| row[queue_column] == "(n/a)" }, "puma: queue p95 is n/a, puma cannot report it:\n#{timeline}"
    assert_equal PNG_MAGIC, File.binread(File.join(out, "timeline.png"), 8), "the plot is a PNG"
  end

  def test_capacity_scenario_measures_keep_alive_new_and_h2_with_cpu_split_and_ratios_to_puma_which_skips_h2
    require_harness(%w[puma taskset setsid wrk h2load])

    out = File.join(temp_dir, "capacity")
    output, status = run_harness("capacity", "--rounds", "1", "--warmup", "1s", "--measure", "1s",
                                 "--only", "puma-plus,puma,null", "--out", out)
    assert status&.success?, "bench/run capacity failed (#{status.inspect}):\n#{output}"

    summary = File.read(File.join(out, "summary.md"))
    tables = round_tables(summary)
    h2_title = "bench `/hello`, closed loop, HTTP/2 cleartext (`h2load -t 1 -c 16 -m 1`)"
    assert_equal ["bench `/hello`, closed loop, keep-alive (`wrk -c 16`)",
                  "bench `/hello`, closed loop, a new connection per request (`wrk -c 16 -H 'Connection: close'`)",
                  h2_title],
                 tables.keys, "one table per connection mode:\n#{summary}"
    tables.each do |title, rows|
      h2 = title == h2_title
      assert_equal %w[puma-plus puma null], rows.keys, "#{title}: one row per server, in the scenario's order"
      rows.each do |server, row|
        if h2 && server == "puma"
          assert_equal "—¹", row["achieved rps"], "puma 5.6 has no HTTP/2: its h2 cell is skipped, not measured:\n#{summary}"
          next
        end
        assert_operator Float(row["achieved rps"].delete(",")), :>, 0, "#{server} #{title}: some requests per second"
        assert_equal "0", row["errors"], "#{server} #{title}: every request answered:\n#{summary}"
        assert_operator Float(row["tree CPU / request"].split.first.delete(",")), :>, 0, "#{server}: its tree's CPU per request"
      end
      plus = rows["puma-plus"]
      assert_operator Float(plus["host CPU / request"].split.first.delete(",")), :>, 0, "the Java host used CPU for the requests"
      assert_operator Float(plus["Ruby CPU / request"].split.first.delete(",")), :>, 0, "the Ruby worker used CPU for the requests"
      if h2
        refute plus.key?("tree CPU ÷ puma"), "the baseline, puma, speaks no h2: nothing to compare to"
        next
      end
      assert_equal "n/a", rows["puma"]["host CPU / request"], "puma has no host: all of it is Ruby"
      assert_match(/\A[\d.]+×\z/, plus["tree CPU ÷ puma"], "#{title}: puma-plus's ratio to puma")
      assert_equal "—", rows["puma"]["tree CPU ÷ puma"], "the baseline's own row"
    end
    assert_includes summary, "No ratio columns: the baseline, puma, does not speak h2"
    assert_includes summary, "- ratios: to puma, because puma8 is not in this run"
    assert_includes summary, "its rows are the client's own ceiling"
    opens = summary.scan(/^(\S+) round 1, bench \/hello (keep-alive|new|h2) .*; ([\d.]+) new connections\/request/)
    assert_equal 8, opens.size, "every cell's line, puma's h2 cell skipped:\n#{summary}"
    opens.each do |server, mode, per_request|
      if mode == "new"
        assert_operator Float(per_request), :>=, 0.95, "#{server}: wrk opened a new connection for every request"
      elsif server != "puma" # puma 5.6 closes a busy keep-alive connection every 10 requests
        assert_operator Float(per_request), :<, 0.5, "#{server}: #{mode} connections were reused"
      end
    end
    assert File.file?(File.join(out, "puma-bench-r1-2.wrk.txt")), "wrk's own output is kept"
    assert File.file?(File.join(out, "puma-plus-bench-r1-3.h2load.txt")), "h2load's own output is kept"
  end

  def test_lowrate_scenario_measures_open_loop_cells_on_both_connection_modes_and_says_where_cpu_came_from
    require_harness(%w[puma taskset setsid wrk])

    out = File.join(temp_dir, "lowrate")
    output, status = run_harness("lowrate", "--rounds", "1", "--warmup", "1s", "--measure", "2s", "--apps", "bench",
                                 "--paths", "/hello", "--connections", "keep-alive,new", "--rates", "50",
                                 "--only", "puma-plus,puma", "--out", out)
    assert status&.success?, "bench/run lowrate failed (#{status.inspect}):\n#{output}"

    summary = File.read(File.join(out, "summary.md"))
    tables = round_tables(summary)
    assert_equal ["bench `/hello`, open loop, keep-alive (a pool of up to 16 connections)",
                  "bench `/hello`, open loop, a new connection per request"], tables.keys, summary
    tables.each do |title, rows|
      assert_equal %w[puma-plus puma], rows.keys, title
      rows.each do |server, row|
        assert_equal "50 rps", row["rate"]
        assert_operator Float(row["achieved rps"]), :>, 30, "#{server} #{title}: ~100 Poisson arrivals in 2 s"
        assert_equal "0", row["errors"], "#{server} #{title}: every request answered at this light load"
        assert_match(/\A[\d.]+ (µs|ms)\z/, row["p99.9"], "#{server}: its tail")
      end
      assert_match(/\A[\d,.]+ µs\z/, rows["puma-plus"]["host CPU / request"], "the host's CPU, from its threads' schedstat")
    end
    assert_match(/^- CPU per request: .* Tree: (cgroup v1 cpuacct .*, ns|.*WARNING: too coarse)/, summary,
                 "the report says which source the tree's CPU came from, and warns when it fell back to ticks")
    refute_includes summary, "## rails", "--apps bench starts no Rails server"
  end

  private

  # The round report's tables by their "## " title, each a hash of rows by server, each row a hash by column.
  # Skips (fails under CI) unless +tools+ are on PATH and the harness is built, saying which is missing.
  def require_harness(tools)
    missing = tools.find { |tool| !self.class.find_executable(tool) }
    skip_or_fail("#{missing} is not installed") if missing
    jar = File.join(ROOT, "bench/loadgen/target/loadgen.jar")
    skip_or_fail("#{jar} is not built (run script/build)") unless File.file?(jar)
  end

  def round_tables(summary)
    summary.split(/^## /).drop(1).reject { |block| block.start_with?("Every cell") }.to_h do |block|
      title, *lines = block.lines.map(&:strip)
      header, _rule, *rows = lines.select { |l| l.start_with?("|") }
      names = header.split("|").map(&:strip).drop(1)
      [title, rows.to_h { |r| values = r.split("|").map(&:strip).drop(1); [values[1], names.zip(values).to_h] }]
    end
  end

  # Runs bench/run with `args` in its own process group; on timeout TERMs it (its shutdown hook stops the
  # server it runs) and then kills the group.
  def run_harness(*args)
    reader, writer = IO.pipe
    pid = Process.spawn({ "CI" => ENV["CI"].to_s }, File.join(ROOT, "bench/run"), *args,
                        chdir: ROOT, pgroup: true, in: File::NULL, out: writer, err: writer)
    writer.close
    output = +""
    collector = Thread.new { output << reader.read }
    _, status = Process.wait2(pid)
    collector.join
    [output, status]
  ensure
    reader&.close
    if pid && status.nil?
      begin
        Process.kill("TERM", -pid)
        sleep 3
        Process.kill("KILL", -pid)
      rescue Errno::ESRCH
        nil
      end
    end
  end
end
