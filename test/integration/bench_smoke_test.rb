# The benchmark harness's smoke run (bench/scenarios/smoke.scenario): `bench/run smoke` starts puma-plus and
# Debian's puma one after another on the same Rack app, drives each with the open-loop generator for a few
# seconds, and writes the report. A few seconds of load, not a measurement: this proves the whole chain
# (pinning, warm-up, load, health probe, /stats sampling, table, timeline, plot, raw CSV) works end to end.
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
    output, status = run_harness(out)
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

  private

  # Runs bench/run in its own process group; on timeout TERMs it (its shutdown hook stops the server it
  # runs) and then kills the group.
  def run_harness(out)
    reader, writer = IO.pipe
    pid = Process.spawn({ "CI" => ENV["CI"].to_s }, File.join(ROOT, "bench/run"), "smoke", "--out", out,
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
