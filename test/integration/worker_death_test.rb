# A worker process that dies mid-request costs exactly that request: its client gets a 502 at once, clients
# served by other workers are unaffected, and the shepherd replaces the worker, which dials back in.
require "server_helper"

class WorkerDeathTest < IntegrationTest
  TEST_TIMEOUT = 90

  def test_sigkilled_worker_costs_only_its_request_and_is_replaced
    server = start_server(app("probe.ru"), workers: 2, threads: 2)
    assert_equal 4, server.slots
    dir = temp_dir
    pidfile = File.join(dir, "slow.pid")
    fast_log = File.join(dir, "fast.log")
    original_pids = server.worker_pids

    slow = server.connect
    slow.write(RawHttp.request("GET", "/slow?ms=2000&id=slow&pidfile=#{pidfile}"))
    assert eventually(timeout: 5, interval: 0.01) { File.exist?(pidfile) && !File.read(pidfile).empty? },
           with_log(server, "/slow never started")
    victim = Integer(File.read(pidfile))
    assert_includes original_pids, victim, "/stats should list the worker that serves /slow"

    # Clients keep sending /fast (100 ms each) before, during and after the kill.
    stop_fast = false
    fast_results = Queue.new
    fast_clients = 3.times.map do |client|
      Thread.new do
        n = 0
        until stop_fast
          id = "c#{client}-#{n += 1}"
          begin
            response = server.request("GET", "/fast?ms=100&id=#{id}&log=#{fast_log}", timeout: 10)
            fast_results << [id, response.status, response.body]
          rescue StandardError => e
            fast_results << [id, e.class.name, e.message]
          end
        end
      end
    end
    sleep 0.3

    killed_at = monotonic
    Process.kill("KILL", victim)
    response = slow.read_response(timeout: 5)
    latency = response.received_at - killed_at
    diag "502 arrived #{(latency * 1000).round} ms after SIGKILL"
    assert_equal 502, response.status, with_log(server, "the client of the killed worker")
    assert_operator latency, :<=, 0.5, with_log(server, "502 arrived #{(latency * 1000).round} ms after the kill")

    sleep 1
    stop_fast = true
    fast_clients.each(&:join)
    results = Array.new(fast_results.size) { fast_results.pop }
    started_on = File.readlines(fast_log, chomp: true).to_h { |line| line.split.values_at(1, 2) }
    refute_empty results
    unstarted = []
    results.each do |id, status, body|
      next if status == 200

      # Only a /fast that was on the killed worker may fail: one its app had started (it logged it), or
      # one dispatched to its idle slot in the instant before SIGKILL, which died before app.call.
      if started_on.key?(id)
        assert_equal victim.to_s, started_on[id],
                     with_log(server, "/fast #{id} got #{status} #{body.inspect} but ran on #{started_on[id].inspect}")
      else
        assert_equal 502, status, with_log(server, "/fast #{id} never reached an app, yet got #{status} #{body.inspect}")
        unstarted << [id, status, body]
      end
    end
    assert_operator unstarted.size, :<=, 1,
                    with_log(server, "the victim had one idle slot, yet #{unstarted.size} unstarted /fast failed: #{unstarted}")
    diag "/fast outcomes: #{results.map { |_, status, _| status }.tally}"
    served_by = results.select { |_, status, _| status == 200 }.map { |_, _, body| Integer(body.split.last) }
    assert_operator served_by.count { |pid| pid != victim }, :>=, 5, "other workers kept serving: #{served_by.tally}"

    replaced = eventually(timeout: 10, interval: 0.2) do
      stats = server.stats
      pids = stats["worker_status"].map { |w| w["pid"] }
      slots = stats["worker_status"].sum { |w| w.dig("last_status", "running").to_i }
      stats["booted_workers"] == 2 && pids.size == 2 && !pids.include?(victim) && (pids - original_pids).size == 1 &&
        slots == 4
    end
    assert replaced, with_log(server, "no replacement worker in /stats within 10 s: #{server.stats.inspect}")

    # Full capacity again: 4 requests of 500 ms run side by side on 4 slots.
    started = monotonic
    four = 4.times.map { |i| Thread.new { server.request("GET", "/sleep?ms=500&id=full#{i}", timeout: 10) } }.map(&:value)
    assert_equal [200] * 4, four.map(&:status)
    assert_operator monotonic - started, :<, 0.95, "4 slots should serve 4 concurrent requests at once"
    assert_includes four.map { |r| Integer(r.body.split.last) }, (server.worker_pids - original_pids).first
  ensure
    stop_fast = true
    slow&.close
  end
end
