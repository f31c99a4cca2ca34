# /stats on the control listener is a strict superset of puma 5.6's: every key Debian's puma reports for
# the same app in cluster mode is there with the same JSON type, so existing puma dashboards keep working;
# the queue measurements are added under `queue` (docs/METRICS.md).
require "timing_helper"

class QueueStatsTest < TimingTest
  TEST_TIMEOUT = 90
  QUEUE_KEYS = %w[window p50_ms p95_ms p99_ms max_ms depth busy_slots live_slots predicted_wait_ms slot_mean_ms
                  service_p50_ms service_p95_ms arrivals_per_s utilization dropped shed windows].freeze
  WINDOW_KEYS = (%w[count arrivals_per_s] +
                 %w[queue service total].product(%w[p50 p90 p95 p99 max]).map { |kind, p| "#{kind}_#{p}_ms" }).freeze

  def test_stats_keeps_every_key_of_puma_5_6_stats_in_cluster_mode
    puma = PumaPeer.find or return skip_or_fail("Debian's puma (the `puma` command) is not installed")
    reference = puma.stats_of(app("probe.ru"), workers: 2, threads: 2, dir: temp_dir)

    server = start_server(app("probe.ru"), workers: 2, threads: 2)
    server.request("GET", "/")
    ours = server.stats

    missing = []
    compare(reference, ours, "", missing)
    assert_empty missing, "puma-plus /stats lacks or retypes puma #{puma.version}'s keys: #{missing}\n" \
                          "puma: #{JSON.generate(reference)}\npuma-plus: #{JSON.generate(ours)}"
    assert_equal %w[worker_status], reference.keys.select { |k| reference[k].is_a?(Array) },
                 "puma's shape changed: compare arrays again"
  end

  def test_stats_queue_object_has_every_documented_key
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    5.times { assert_equal 200, server.request("GET", "/timing/s").status }
    # A request is counted when its response ends, its slot time when the worker frees the slot after it: a
    # /stats read in between can see the count without a slot time yet.
    queue = eventually(timeout: 5) do
      (q = server.stats["queue"]) && q.dig("windows", "60s", "count").to_i >= 5 && q["slot_mean_ms"] && q
    end
    assert queue, "no queue object counting the requests and their slot time in /stats: #{server.stats}"

    assert_empty QUEUE_KEYS - queue.keys, "queue lacks keys: #{queue.keys}"
    assert_equal "10s", queue["window"]
    (QUEUE_KEYS - %w[window windows]).each { |key| assert_kind_of Numeric, queue[key], "queue.#{key}" }
    assert_equal 2, queue["live_slots"]
    assert_equal 0, queue["busy_slots"]
    assert_equal 0, queue["depth"]
    assert_equal 0, queue["predicted_wait_ms"], "an idle slot means no wait"
    assert_equal %w[10s 1s 60s], queue["windows"].keys.sort
    queue["windows"].each do |name, window|
      assert_empty WINDOW_KEYS - window.keys, "windows.#{name} lacks keys: #{window.keys}"
      WINDOW_KEYS.each { |key| assert_kind_of Numeric, window[key], "windows.#{name}.#{key}" }
      %w[queue service total].each do |kind|
        values = %w[p50 p90 p95 p99 max].map { |p| window["#{kind}_#{p}_ms"] }
        assert_equal values.sort, values, "windows.#{name} #{kind} percentiles are not monotonic: #{values}"
      end
    end
    assert_equal 5, queue.dig("windows", "60s", "count")

    pretty = control_get(server, "/stats?pretty=1")
    assert_includes pretty.body, "\n", "?pretty=1 is not indented"
    assert_equal queue.keys.sort, JSON.parse(pretty.body).fetch("queue").keys.sort
  end

  private

  # Every key of puma's document must exist in ours with the same JSON type; arrays: each of our elements
  # must have the keys of puma's first element.
  def compare(theirs, ours, path, missing)
    case theirs
    when Hash
      return missing << "#{path} (not an object: #{ours.inspect})" unless ours.is_a?(Hash)

      theirs.each do |key, value|
        if ours.key?(key)
          compare(value, ours[key], "#{path}.#{key}", missing)
        else
          missing << "#{path}.#{key}"
        end
      end
    when Array
      return missing << "#{path} (not an array)" unless ours.is_a?(Array)
      return missing << "#{path} (empty)" if ours.empty? && !theirs.empty?

      ours.each_with_index { |element, i| compare(theirs.first, element, "#{path}[#{i}]", missing) } if theirs.any?
    else
      missing << "#{path} (#{json_type(theirs)} in puma, #{json_type(ours)} here)" unless json_type(theirs) == json_type(ours)
    end
  end

  def json_type(value)
    case value
    when true, false then "boolean"
    when Integer then "integer"
    when Float then "number"
    else value.class.name.downcase
    end
  end


  # Debian's puma, run in cluster mode on an app with a control app, to read its /stats once every worker
  # has checked in.
  class PumaPeer
    TOKEN = "puma-peer"

    def self.find
      path = IntegrationTest.find_executable("puma")
      path && new(path)
    end

    def initialize(path)
      @path = path
    end

    def version
      @version ||= `#{@path} --version`.strip
    end

    # Starts puma on `rackup`, waits until every worker's last_status is filled in (puma's workers check in
    # every worker_check_interval seconds; 1 here), returns /stats parsed, and stops puma by its pid.
    def stats_of(rackup, workers:, threads:, dir:)
      config = File.join(dir, "puma.rb")
      File.write(config, "worker_check_interval 1\n")
      log = File.join(dir, "puma.log")
      pid = Process.spawn(@path, "-w", workers.to_s, "-t", "#{threads}:#{threads}", "-b", "tcp://127.0.0.1:0",
                          "--control-url", "tcp://127.0.0.1:0", "--control-token", TOKEN, "-C", config, rackup,
                          chdir: dir, pgroup: true, in: File::NULL, out: log, err: log)
      control = wait_for(30) { File.read(log)[%r{Starting control server on http://127\.0\.0\.1:(\d+)}, 1] }
      raise "puma printed no control server line:\n#{File.read(log)}" unless control

      stats = wait_for(30) do
        doc = JSON.parse(Net::HTTP.get(URI("http://127.0.0.1:#{control}/stats?token=#{TOKEN}")))
        statuses = doc["worker_status"] || []
        doc if statuses.size == workers && statuses.all? { |w| w["last_status"].is_a?(Hash) && !w["last_status"].empty? }
      rescue SystemCallError, JSON::ParserError
        nil
      end
      raise "puma's workers never checked in:\n#{File.read(log)}" unless stats

      stats
    ensure
      stop(pid) if pid
    end

    private

    def wait_for(seconds)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
      loop do
        value = yield
        return value if value || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.1
      end
    end

    def stop(pid)
      Process.kill("TERM", pid)
      Process.wait(pid) if wait_for(10) { Process.wait(pid, Process::WNOHANG) }.nil?
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    ensure
      begin
        Process.kill("KILL", -pid)
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end
    end
  end
end
