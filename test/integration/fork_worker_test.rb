# fork_worker and the mold (docs/CONFIG.md, "fork_worker and the mold") on the real host: a refork asked for
# with `puma-plus ctl refork` and with SIGURG to the host makes worker 0 the mold and forks every worker from
# it, under steady load and without a failed request; the worker that first serves fork_worker's count of
# requests asks for the first refork itself; and the workers stay the shepherd's children throughout. Workers
# whose slots are fibers (`fibers`) refork the same way and run fiber slots when forked from the mold.
require "server_helper"
require "open3"

class ForkWorkerTest < IntegrationTest
  TEST_TIMEOUT = 120

  def mold_server(*lines)
    dir = temp_dir
    File.write(File.join(dir, "puma-plus.rb"), lines.map { |line| "#{line}\n" }.join)
    start_server(app("probe.ru"), workers: 2, threads: 2, config: File.join(dir, "puma-plus.rb"))
  end

  def parent_of(pid)
    File.read("/proc/#{pid}/stat").split(") ", 2).last.split(" ")[1].to_i
  end

  def shepherd_of(server)
    server.descendant_pids.find { |pid| File.read("/proc/#{pid}/cmdline").include?("puma-plus: shepherd") }
  end

  def mold_of(server)
    server.descendant_pids.find { |pid| File.read("/proc/#{pid}/cmdline").include?("puma-plus: mold") }
  end

  # Sends GET /sleep?ms=5, one after another over new connections, from a thread from 1 s before the block
  # until 1 s after it; returns the statuses (an exception's class name for a request that failed).
  def under_load(server)
    stop = false
    load = Thread.new do
      statuses = []
      statuses << (server.request("GET", "/sleep?ms=5").status rescue $!.class.name) until stop
      statuses
    end
    sleep 1
    yield
    sleep 1
    stop = true
    load.value
  end

  # Waits for the n-th "refork done" line.
  def await_refork(server, count)
    assert eventually(timeout: 30) { server.output.scan("puma-plus: refork done").size >= count },
           with_log(server, "refork #{count} did not finish")
  end

  def test_a_refork_by_ctl_and_by_sigurg_under_load_fails_nothing_and_every_worker_forks_from_the_mold
    server = mold_server("fork_worker 0")
    shepherd = shepherd_of(server)
    zero = server.output[/worker 0 \(pid (\d+)\) booted/, 1].to_i
    statuses = under_load(server) do
      out, status = Open3.capture2e(PumaPlusServer::EXE, "ctl", "--control-url", "tcp://127.0.0.1:#{server.control_port}",
                                    "-T", server.control_token, "refork")
      assert status.success?, "puma-plus ctl refork: #{out}"
      await_refork(server, 1)
      assert_equal zero, mold_of(server), with_log(server, "the mold is not the old worker 0")
      Process.kill("URG", server.pid) # puma's refork signal, to the host (pidfile's pid)
      await_refork(server, 2)
    end
    assert_operator statuses.size, :>, 100
    assert_equal [200], statuses.uniq, with_log(server, "requests failed during the reforks: #{statuses.tally}")
    mold = mold_of(server)
    refute_equal zero, mold, "the second refork made a new mold"
    assert eventually { !PumaPlusServer.alive?(zero) }, "the first mold is gone"
    workers = server.worker_pids
    assert_equal 2, workers.size
    ([mold] + workers).each { |pid| assert_equal shepherd, parent_of(pid), "#{pid} is not the shepherd's child" }
    assert_includes server.output, "puma-plus: mold: ready (pid #{mold}, was worker 0); new workers fork from it"
  end

  def test_fiber_workers_refork_from_a_mold_under_load_and_serve_on_fiber_slots
    server = mold_server("fork_worker 0", "fibers 2")
    zero = server.output[/worker 0 \(pid (\d+)\) booted/, 1].to_i
    statuses = under_load(server) do
      Process.kill("URG", server.pid)
      await_refork(server, 1)
    end
    assert_operator statuses.size, :>, 50
    assert_equal [200], statuses.uniq, with_log(server, "requests failed during the refork: #{statuses.tally}")
    assert_equal zero, mold_of(server), with_log(server, "the mold is not the old worker 0")
    slots = Array.new(10) { server.request("GET", "/slot").body.split }
    assert_equal ["fiber"], slots.map(&:first).uniq, "the workers forked from the mold run fiber slots"
    assert_empty slots.map { |_, pid| pid.to_i } - server.worker_pids, "answered by the workers forked from the mold"
  end

  def test_the_worker_that_first_serves_fork_workers_count_becomes_the_mold_once
    server = mold_server("fork_worker 20")
    served = Array.new(100) { server.request("GET", "/pid").body.to_i }
    match = server.await_line(/\Apuma-plus: refork \(worker (\d) served 20 requests\): worker \1 \(pid (\d+)\) becomes the mold/, 30)
    assert match, with_log(server, "no automatic refork (requests by pid: #{served.tally})")
    mold = match[2].to_i
    assert_operator served.count(mold), :>=, 20, "the mold is the worker that served them (requests by pid: #{served.tally})"
    await_refork(server, 1)
    100.times { assert_equal 200, server.request("GET", "/").status }
    sleep 1
    assert_equal 1, server.output.scan(/served 20 requests/).size, "only the first refork is automatic, as puma's"
  end
end
