# Scale-out checked against a real Prometheus (docs/METRICS.md, "Scaling beyond one machine"; deploy/):
# Debian's prometheus server scrapes the metrics listeners of two live puma-plus instances, labelled as two
# pods of one namespace the way Kubernetes pod discovery labels them, while each serves its own steady load.
# The queries deploy/ gives the autoscalers are then run through Prometheus's HTTP API: prometheus-adapter's
# seriesQuery (which pods it finds) and its metricsQuery rendered as the adapter renders it for a pods
# request, and KEDA's trigger query. What they return must agree with the instances' own /stats within 10 %.
require "timing_helper"
require "socket"
require "timeout"
require "yaml"

class PrometheusScaleTest < TimingTest
  TEST_TIMEOUT = 120
  DEPLOY = File.join(PumaPlusServer::ROOT, "deploy")
  # Each pod's load, requests a second of /sleep?ms=20 on 2 slots: utilization about 0.3 and 0.6.
  RATES = { "web-0" => 30, "web-1" => 60 }.freeze
  LOAD_SECONDS = 24
  # Utilization is a 10 s window: the queries run once the load has filled one, and a scrape a second.
  SETTLE_SECONDS = 14
  AGREEMENT = 0.10

  def test_the_adapter_rule_and_the_keda_query_read_what_each_instance_reports
    binary = IntegrationTest.find_executable("prometheus") or
      return skip_or_fail("prometheus (Debian's prometheus package) is not installed")
    servers = RATES.to_h do |pod, _|
      [pod, start_server(app("probe.ru"), workers: 1, threads: 2, args: ["--metrics-url", "tcp://127.0.0.1:0"])]
    end
    prometheus = start_prometheus(binary, servers.transform_values { |server| metrics_port(server) })
    start = Timing.now_ns + 50 * Timing::MS
    arrivals = servers.flat_map do |pod, server|
      steady_arrivals(server, rps: RATES.fetch(pod), seconds: LOAD_SECONDS, target: "/sleep?ms=20", start: start, tag: pod)
    end
    client = Timing::ConcurrentClient.new(servers.values.first.port)
    load = Thread.new { Timing.in_child { client.run(arrivals, timeout: LOAD_SECONDS + 30) } }
    sleep SETTLE_SECONDS

    rule = adapter_rule
    found = prometheus.get("/api/v1/series", "match[]" => rule.fetch("seriesQuery"))
    assert_equal RATES.keys, found.map { |series| series.fetch("pod") }.sort, "the adapter's seriesQuery finds both pods"

    # prometheus-adapter's rendering for "pods web-0 and web-1 in namespace default" (its naming.go):
    # the series, the resource label matchers, and the resource labels to group by.
    per_pod = rule.fetch("metricsQuery").gsub("<<.Series>>", "puma_plus_utilization")
                  .gsub("<<.LabelMatchers>>", %(namespace="default",pod=~"#{RATES.keys.join('|')}"))
                  .gsub("<<.GroupBy>>", "pod")
    adapter = prometheus.query(per_pod).to_h { |sample| [sample.dig("metric", "pod"), Float(sample.dig("value", 1))] }
    reported = servers.transform_values { |server| server.stats.fetch("queue").fetch("utilization") }
    keda = prometheus.query(keda_query)
    diag("adapter: #{adapter}, KEDA: #{keda.map { |s| s['value'][1] }}, /stats: #{reported}")

    RATES.each do |pod, rps|
      expected = rps * 0.020 / 2
      assert_in_delta expected, reported.fetch(pod), expected * 0.25,
                      "#{pod}'s /stats utilization under #{rps} rps of 20 ms on 2 slots"
      assert_in_delta reported.fetch(pod), adapter.fetch(pod), reported.fetch(pod) * AGREEMENT,
                      "the adapter rule's value for #{pod} (#{per_pod}) against its /stats"
    end
    assert_equal 1, keda.size, "KEDA's query is one sum: #{keda}"
    total = reported.values.sum
    assert_in_delta total, Float(keda.first.dig("value", 1)), total * AGREEMENT,
                    "KEDA's query (#{keda_query}) against the sum of the pods' /stats"

    failed = load.value.reject { |e| e.status == 200 }
    assert_empty failed, "every request of the steady loads is answered: #{failed.first(3).map { |e| [e.tag, e.status, e.error] }}"
  end

  def teardown
    @prometheus&.stop
    super
  end

  private

  # The port of the instance's metrics listener, from its "metrics on" line.
  def metrics_port(server)
    line = server.await_line(%r{\Apuma-plus: metrics on http://127\.0\.0\.1:(\d+)/metrics\z}, 5)
    assert line, with_log(server, "no 'metrics on' line")
    Integer(line[1])
  end

  # deploy/prometheus-adapter.yaml's one rule, from the config.yaml its ConfigMap carries.
  def adapter_rule
    config_map = YAML.safe_load_file(File.join(DEPLOY, "prometheus-adapter.yaml"))
    YAML.safe_load(config_map.dig("data", "config.yaml")).fetch("rules").first
  end

  def keda_query
    YAML.safe_load_file(File.join(DEPLOY, "keda-scaledobject.yaml"))
        .dig("spec", "triggers").find { |t| t["type"] == "prometheus" }.dig("metadata", "query")
  end

  def start_prometheus(binary, targets)
    dir = temp_dir
    config = {
      "global" => { "scrape_interval" => "1s", "evaluation_interval" => "1s" },
      "scrape_configs" => [{
        "job_name" => "puma-plus",
        "static_configs" => targets.map do |pod, port|
          { "targets" => ["127.0.0.1:#{port}"], "labels" => { "namespace" => "default", "pod" => pod } }
        end
      }]
    }
    File.write(File.join(dir, "prometheus.yml"), YAML.dump(config))
    prometheus = @prometheus = Prometheus.new(binary, dir)
    up = eventually(timeout: 20, interval: 0.25) do
      prometheus.ready? && prometheus.query("up").count { |sample| sample.dig("value", 1) == "1" } == targets.size
    end
    assert up, "Prometheus did not come up scraping both instances:\n#{prometheus.log}"
    prometheus
  end

  # A Prometheus server of our own: its own config, data directory and loopback port; stopped by #stop.
  class Prometheus
    def initialize(binary, dir)
      @dir = dir
      @port = TCPServer.open("127.0.0.1", 0) { |probe| probe.addr[1] }
      @pid = Process.spawn(binary, "--config.file=#{dir}/prometheus.yml", "--storage.tsdb.path=#{dir}/data",
                           "--web.listen-address=127.0.0.1:#{@port}", in: File::NULL, %i[out err] => log_path)
    end

    def ready?
      Net::HTTP.get_response(URI("http://127.0.0.1:#{@port}/-/ready")).code == "200"
    rescue SystemCallError
      false
    end

    # An instant query's result vector.
    def query(expression)
      get("/api/v1/query", "query" => expression)
    end

    # GET +path+ of the HTTP API with +params+; the answer's data.
    def get(path, params)
      uri = URI("http://127.0.0.1:#{@port}#{path}")
      uri.query = URI.encode_www_form(params)
      answer = JSON.parse(Net::HTTP.get(uri))
      raise "Prometheus #{path} #{params}: #{answer}" unless answer["status"] == "success"

      data = answer.fetch("data")
      data.is_a?(Hash) ? data.fetch("result") : data
    end

    def log = File.read(log_path)

    # TERM, and KILL if it has not ended 10 s later.
    def stop
      Process.kill("TERM", @pid)
      Timeout.timeout(10) { Process.wait(@pid) }
    rescue Timeout::Error
      Process.kill("KILL", @pid)
      Process.wait(@pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    end

    private

    def log_path = File.join(@dir, "prometheus.log")
  end
end
