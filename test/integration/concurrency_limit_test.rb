# The concurrency limit of fiber slots (docs/CONTROL.md, "The concurrency limit") on the real host with a
# real --fibers worker: an app standing in for a dependency whose latency rises beyond 10 calls in flight
# (20 ms a call while at most 10 run, in proportion beyond: a pool of 10), first at low concurrency, then
# under 60 concurrent clients, has the limit the controller sets lowered below its 40 fiber slots, shown
# in /stats and /metrics, and every request is still answered.
require "timing_helper"
require "net/http"

class ConcurrencyLimitTest < TimingTest
  APP = <<~RUBY
    # The dependency, inside the worker: every request waits 20 ms while at most 10 are in flight, and in
    # proportion beyond. The fiber slots share one thread, so the count needs no lock.
    in_flight = 0
    run lambda { |_env|
      in_flight += 1
      begin
        sleep 0.02 * [1.0, in_flight / 10.0].max
      ensure
        in_flight -= 1
      end
      [200, { "content-type" => "text/plain" }, ["ok"]]
    }
  RUBY

  # +clients+ threads, each GETting / in a loop on its own keep-alive connection for +seconds+; the count
  # of each status seen.
  def drive(server, clients, seconds)
    deadline = monotonic + seconds
    Array.new(clients) do
      Thread.new do
        statuses = Hash.new(0)
        Net::HTTP.start("127.0.0.1", server.port) do |http|
          statuses[http.get("/").code] += 1 while monotonic < deadline
        end
        statuses
      end
    end.map(&:value).reduce { |a, b| a.merge(b) { |_, x, y| x + y } }
  end

  def test_sixty_clients_of_a_dependency_that_slows_beyond_ten_bring_the_limit_below_the_forty_fiber_slots
    rackup = File.join(temp_dir, "config.ru")
    File.write(rackup, APP)
    server = start_server(rackup, workers: 1, args: ["--fibers", "40"])
    assert server.await_line(/1 worker x 40 fibers = 40 slots/, 5), with_log(server, "no fiber boot line")
    assert_equal 40, server.stats.dig("queue", "concurrency_limit"), "every fiber slot may run at first"

    light = drive(server, 5, 2) # the no-load time: 5 at once, 20 ms each
    assert_equal 40, server.stats.dig("queue", "concurrency_limit"), "a light load never meets the limit"
    heavy = drive(server, 60, 6)
    queue = server.stats.fetch("queue")
    limit = queue.fetch("concurrency_limit")
    diag "limit #{limit} after 6 s of 60 clients (#{heavy.values.sum} requests; queue #{queue.slice("p50_ms", "p99_ms")})"
    assert_operator limit, :<=, 30, with_log(server, "limit #{limit} after 6 s of 60 clients")
    # /metrics is read a moment later, and the limiter may have moved the limit in between: same claim.
    exposed = Net::HTTP.get(server.control_uri("/metrics"))[/^puma_plus_concurrency_limit (\d+)$/, 1]
    assert exposed, "no puma_plus_concurrency_limit in /metrics"
    assert_operator Integer(exposed), :<=, 30, "/metrics' limit after 6 s of 60 clients"
    assert_equal ["200"], light.merge(heavy).keys, "every request answered: #{light} #{heavy}"
  end
end
