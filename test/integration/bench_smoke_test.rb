# The benchmark harness's smoke run (bench/scenarios/smoke.scenario): `bench/run smoke` starts puma-plus and
# Debian's puma one after another on the same Rack app, drives each with the open-loop generator for a few
# seconds, and writes the report. A few seconds of load, not a measurement: this proves the whole chain
# (pinning, warm-up, load, health probe, /stats sampling, table, timeline, plot, raw CSV) works end to end.
# The same for the closed-loop capacity scenario (bench/scenarios/capacity.scenario) with one second of wrk
# per measured run: its table, ratios and per-role accounting, not its numbers.
require "server_helper"
require "csv"

class BenchSmokeTest < IntegrationTest
  TEST_TIMEOUT = 180 # two server boots (puma-plus ~5-10 s on a loaded machine) and 2 x 5 s of load
  ROOT = PumaPlusServer::ROOT
  PNG_MAGIC = "\x89PNG\r\n\x1a\n".b

  def test_smoke_scenario_reports_puma_plus_and_puma_side_by_side
    %w[puma taskset setsid].each do |tool|
      return skip_or_fail("#{tool} is not installed") unless self.class.find_executable(tool)
    end
    jar = File.join(ROOT, "bench/loadgen/target/loadgen.jar")
    return skip_or_fail("#{jar} is not built (run script/build)") unless File.file?(jar)

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

  def test_capacity_scenario_measures_both_connection_modes_with_cpu_by_role_and_ratios_to_puma
    %w[puma taskset setsid wrk].each do |tool|
      return skip_or_fail("#{tool} is not installed") unless self.class.find_executable(tool)
    end
    jar = File.join(ROOT, "bench/loadgen/target/loadgen.jar")
    return skip_or_fail("#{jar} is not built (run script/build)") unless File.file?(jar)

    out = File.join(temp_dir, "capacity")
    output, status = run_harness("capacity", "--reps", "1", "--warmup", "1s", "--measure", "1s",
                                 "--only", "puma-plus:w1,puma:w1,null", "--out", out)
    assert status&.success?, "bench/run capacity failed (#{status.inspect}):\n#{output}"

    summary = File.read(File.join(out, "summary.md"))
    # | server | connection | rps | errors | client CPU | new conns / request | CPU / request | by role | PSS idle | PSS loaded |
    rows = summary.lines.select { |l| l.match?(/\A\| (puma|null)/) }.map { |l| l.strip.split("|").map(&:strip).drop(1) }
    table = rows.select { |r| r.size == 10 }.to_h { |r| [[r[0], r[1]], r] }
    expected = %w[puma-plus:w1 puma:w1 null].product(%w[keep-alive close])
    assert_equal expected, table.keys, "one row per server and connection mode, in the scenario's order:\n#{summary}"
    table.each do |(server, mode), row|
      assert_operator Float(row[2].delete(",")), :>, 0, "#{server} #{mode}: some requests per second"
      assert_equal "0", row[3], "#{server} #{mode}: every request answered:\n#{summary}"
      opens = Float(row[5])
      if mode == "close"
        assert_operator opens, :>=, 0.95, "#{server}: wrk opened a new connection for every request:\n#{summary}"
      elsif server != "puma:w1" # puma 5.6 closes a busy keep-alive connection every 10 requests
        assert_operator opens, :<, 0.5, "#{server}: keep-alive connections were reused:\n#{summary}"
      end
      assert_match(/\A\d+ MB\z/, row[8], "#{server} #{mode}: idle PSS")
      assert_operator Integer(row[9].split.first), :>, 0, "#{server} #{mode}: loaded PSS"
    end
    roles = ->(row) { row[7].split(", ").to_h { |part| name, value = part.split(" ", 2); [name, Float(value.split.first)] } }
    plus = roles.call(table[%w[puma-plus:w1 keep-alive]])
    assert_equal %w[host shepherd workers], plus.keys, "puma-plus's CPU by role:\n#{summary}"
    assert_operator plus["host"], :>, 0, "the Java host used CPU for the requests"
    assert_operator plus["workers"], :>, 0, "the Ruby worker used CPU for the requests"
    assert_equal %w[master workers], roles.call(table[%w[puma:w1 keep-alive]]).keys, "puma's CPU by role"
    %w[keep-alive close].each do |mode|
      assert_match(/^\| w1 \| #{mode} \| [\d.]+× \| [\d.]+× \| [\d.]+× \| [\d.]+× \| \d+% \|$/, summary, "the #{mode} ratios to puma")
    end
    assert_match(/wrk against the null server .*: [\d,]+ rps keep-alive, [\d,]+ rps close/, summary, "the client's ceiling")
    assert File.file?(File.join(out, "puma-w1-r1-close.wrk.txt")), "wrk's own output is kept"
  end

  private

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
