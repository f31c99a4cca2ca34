# deploy/ (prometheus-adapter rule, HPA, KEDA ScaledObject, Grafana dashboard) held to the published schemas
# and to a real /metrics page: deploy/validate/validate.mjs checks each manifest against its kind's schema,
# every PromQL expression with Prometheus's grammar, and every metric it names against this scrape.
require "timing_helper"
require "open3"
require "fileutils"

class DeployManifestsTest < TimingTest
  TEST_TIMEOUT = 90
  DEPLOY = File.join(PumaPlusServer::ROOT, "deploy")
  VALIDATOR = File.join(DEPLOY, "validate/validate.mjs")

  def test_deploy_manifests_pass_their_schemas_and_name_only_metrics_that_metrics_exposes
    output, status = validate(real_scrape, DEPLOY)
    assert status.success?, "deploy/ fails validation:\n#{output}"
    assert_match(/deploy: 4 files valid/, output)
  end

  def test_the_validator_rejects_a_schema_violation_and_a_metric_that_metrics_does_not_expose
    broken = temp_dir
    FileUtils.cp(Dir[File.join(DEPLOY, "*.{yaml,json}")], broken)
    edit(broken, "hpa.yaml") { |text| text.sub("maxReplicas: 30", 'maxReplicas: "30"') }
    edit(broken, "keda-scaledobject.yaml") { |text| text.sub("- type: prometheus", "- typo: prometheus") }
    edit(broken, "prometheus-adapter.yaml") { |text| text.sub("metricsQuery:", "metricQuery:") }
    edit(broken, "grafana-dashboard.json") { |text| text.sub("puma_plus_busy_slots", "puma_plus_idle_slots") }

    output, status = validate(real_scrape, broken)
    refute status.success?, "a broken deploy/ passed:\n#{output}"
    assert_match %r{hpa.yaml: autoscaling/v2/HorizontalPodAutoscaler schema: .*maxReplicas must be integer}, output
    assert_match %r{keda-scaledobject.yaml: keda.sh/v1alpha1/ScaledObject schema: .*must have required property type}, output
    assert_match %r{prometheus-adapter.yaml: config.yaml: .*must NOT have additional properties}, output
    assert_match(/grafana-dashboard.json: .*puma_plus_idle_slots is not on \/metrics/, output)
  end

  private

  # /metrics of a real host that has served a request, in a temp file.
  def real_scrape
    node = IntegrationTest.find_executable("node") or return skip_or_fail("node (Debian's nodejs package) is not installed")
    File.directory?(File.join(DEPLOY, "validate/node_modules")) or
      return skip_or_fail("deploy/validate/node_modules is missing: run script/setup")
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    assert_equal 200, server.request("GET", "/timing/ok").status
    path = File.join(temp_dir, "metrics.txt")
    File.write(path, metrics(server))
    @node = node
    path
  end

  def validate(scrape, dir)
    Open3.capture2e(@node, VALIDATOR, "--metrics", scrape, dir)
  end

  def edit(dir, file)
    path = File.join(dir, file)
    edited = yield(File.read(path))
    refute_equal File.read(path), edited, "the edit of #{file} changed nothing"
    File.write(path, edited)
  end
end
