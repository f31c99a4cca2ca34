# The real host serving examples/ractor/config.ru with `--ractors` (docs/RACK.md, "Ractors"): every slot is
# a Ractor, so two CPU-bound requests on two slots of one worker run in parallel, where two threads of one
# worker take turns on the GVL.
require "server_helper"
require "open3"

class RactorTest < IntegrationTest
  TEST_TIMEOUT = 90
  APP = File.join(PumaPlusServer::ROOT, "examples/ractor/config.ru")
  CPU_MS = 300

  def wall(server, requests)
    started = monotonic
    responses = Array.new(requests) { Thread.new { server.request("GET", "/mix/#{CPU_MS}/0", timeout: 20) } }.map(&:value)
    responses.each { |response| assert_equal 200, response.status, with_log(server, response.body) }
    monotonic - started
  end

  # Median of three rounds, so one round that lands on another process's burst does not decide.
  def median_wall(server, requests)
    Array.new(3) { wall(server, requests) }.sort[1]
  end

  def test_two_cpu_bound_requests_on_two_ractor_slots_take_the_time_of_one_and_on_two_threads_of_two
    ractors = start_server(APP, workers: 1, threads: 2, args: ["--ractors"])
    served_by = Array.new(4) { ractors.request("GET", "/ractor").body }
    assert(served_by.all? { |body| body.start_with?("puma-plus link ") }, with_log(ractors, served_by.inspect))
    one = median_wall(ractors, 1)
    two = median_wall(ractors, 2)
    ractors.stop

    threads = start_server(APP, workers: 1, threads: 2)
    one_thread = median_wall(threads, 1)
    two_threads = median_wall(threads, 2)
    report = format("%d ms of CPU each: Ractors one %.0f ms, two %.0f ms; threads one %.0f ms, two %.0f ms",
                    CPU_MS, one * 1000, two * 1000, one_thread * 1000, two_threads * 1000)
    assert_operator two, :<, one * 1.5, report
    assert_operator two_threads, :>, one_thread * 1.7, report
  end

  def test_an_app_that_cannot_be_shared_stops_the_server_with_its_path_instead_of_retrying_workers_forever
    lambda_app = File.join(PumaPlusServer::ROOT, "examples/hello/config.ru")
    out, status = Open3.capture2e("timeout", "60", PumaPlusServer::EXE, "--ractors", "-w", "2", "-b", "tcp://127.0.0.1:0",
                                  lambda_app)
    assert_equal 1, status.exitstatus, out
    assert_match(/worker \d: the app cannot run in Ractors \(ractors\): app: a Proc that is not shareable/, out)
    assert_match(/use an object with #call/, out)
    refute_match(/next attempt in/, out, "a worker that cannot share the app must not be retried")
  end
end
