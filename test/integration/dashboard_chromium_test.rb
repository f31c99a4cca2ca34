# The live dashboard in a real browser (docs/CONTROL.md, "Dashboard"): Debian's headless Chromium opens
# /dashboard on the control app of an autoscaling server, an open-loop load step makes the controller add
# workers, and the test reads the page's own state through the DevTools protocol: the charts hold a point a
# second, the decision list holds the controller's decisions, each as its decision log line has it, and a
# worker killed outright is marked as a death.
# The screenshot is saved in the test's temp dir, and also to $DASHBOARD_SCREENSHOT when set (how
# docs/dashboard.png is made). script/setup installs chromium; without it the test fails under CI.
require "timing_helper"
require "devtools_client"

class DashboardChromiumTest < TimingTest
  TEST_TIMEOUT = 90

  def test_the_dashboard_plots_a_point_a_second_and_lists_the_autoscalers_decisions_under_a_load_step
    chromium = IntegrationTest.find_executable("chromium") || skip_or_fail("chromium is not installed (script/setup installs it)")
    log = File.join(temp_dir, "decisions.jsonl")
    server = start_server(app("probe.ru"), workers: 1, threads: 2,
                                           config: config_file("autoscale min: 1, max: 4, target_queue_p95: \"50ms\"",
                                                               "decision_log #{log.inspect}", "shed_wait_limit false"))
    browser = DevtoolsClient.new(chromium, server.control_uri("/dashboard").to_s,
                                 profile_dir: temp_dir, window: "1400,1500")
    begin
      connected = eventually(timeout: 15) { browser.evaluate("(window.dashboardState || { points: 0 }).points") >= 3 }
      assert connected, "the page plotted no snapshot: #{browser.evaluate('JSON.stringify(window.dashboardState)')}\n#{browser.stderr_tail}"

      # 2 slots × 20/s = 40 rps of capacity against 100 rps: the controller must add workers.
      done = offer(server, rps: 100, seconds: 8, target: "/sleep?ms=50")
      assert done.count { |e| e.status == 200 } >= done.size * 0.9, with_log(server, "the step was not served")
      scaled = eventually(timeout: 20, interval: 0.5) do
        browser.evaluate("window.dashboardState.decisions.some(d => d.action === 'add')") &&
          browser.evaluate("window.dashboardState.points") >= 20
      end
      # One evaluation, so the state and the list it rendered come from the same snapshot.
      state = browser.evaluate("Object.assign({}, window.dashboardState, {" \
                               "rows: document.querySelectorAll('#decision-rows tr').length, " \
                               "addRows: document.querySelectorAll('#decision-rows tr.add').length })")
      assert scaled, "no add decision, or fewer than 20 points, on the page: points #{state['points']}, " \
                     "decisions #{state['decisions'].last(3)}"

      # A worker killed outright closes its links without GOAWAY: the page marks a death on the time axis.
      victim = server.worker_pids.last
      Process.kill("KILL", victim)
      died = eventually(timeout: 10) do
        browser.evaluate("window.dashboardState.markers.some(m => m.kind === 'worker_died')")
      end
      events = browser.evaluate("window.dashboardState.events")
      assert died, "no worker_died marker after killing #{victim}: #{events}"
      assert_includes events.select { |e| e["kind"] == "worker_died" }.map { |e| e["text"] }.join, victim.to_s

      File.binwrite(File.join(temp_dir, "dashboard.png"), png = browser.screenshot)
      File.binwrite(ENV["DASHBOARD_SCREENSHOT"], png) if ENV["DASHBOARD_SCREENSHOT"]
      assert png.start_with?("\x89PNG".b), "the screenshot is a PNG"

      assert_operator state["points"], :>=, 20, "a chart point a second"
      logged = File.readlines(log).map { |line| JSON.parse(line) }
      shown = state["decisions"]
      assert_operator shown.size, :>=, 10, "the page lists the ticks: #{shown.size}"
      assert_equal logged.first(shown.size).map { |d| [d["policy"], d["tick"], d.dig("decision", "action"), d.dig("decision", "reason")] },
                   shown.map { |d| [d["policy"], d["tick"], d["action"], d["reason"]] },
                   "each decision on the page is the decision log's line of its tick, in order"
      assert_equal [shown.size, 200].min, state["rows"], "the list shows every decision the page holds (up to 200 rows)"
      assert_equal shown.count { |d| d["action"] == "add" }, state["addRows"], "each add decision is a row of the list"
      assert_operator state["last"]["workers"].size, :>=, 2, "the workers the controller added are in the table"
      assert_equal [1], state["generations"], "one shepherd generation, charted by its slots"
      assert state["markers"].any? { |m| m["kind"] == "add" }, "the scale-up is marked on the time axis"
      diag "#{state['points']} points, #{shown.size} decisions (#{shown.count { |d| d['action'] == 'add' }} add), " \
           "#{state['last']['workers'].size} workers"
    ensure
      browser.close
    end
  end
end
