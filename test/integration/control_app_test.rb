# The control app is closed by default (docs/SECURITY.md, "The control app"), on the real host: a token is
# generated, printed once and written to the state file, and nothing answers without it; no_token is a
# configuration error off loopback; a browser page cannot change the server's state; the controller bundle
# loads only from controller_jar_dir; and metrics_url serves /metrics to anyone and no control path at all.
require "server_helper"
require "open3"
require "yaml"
require "socket"

class ControlAppTest < IntegrationTest
  TEST_TIMEOUT = 90
  TOKEN_LINE = /\Apuma-plus: control app token: (\h{32}) \(generated at boot/.freeze

  def get(port, path, headers = {})
    Net::HTTP.start("127.0.0.1", port, open_timeout: 5, read_timeout: 10) do |http|
      http.request(Net::HTTP::Get.new(path, headers))
    end
  end

  def config_file(*lines)
    path = File.join(temp_dir, "puma-plus.rb")
    File.write(path, lines.join("\n") + "\n")
    path
  end

  def test_the_default_control_app_has_a_generated_token_printed_once_and_written_to_the_state_file
    state = File.join(temp_dir, "puma.state")
    server = start_server(app("probe.ru"), workers: 1, threads: 1, args: ["-S", state])
    printed = server.output.lines.grep(TOKEN_LINE)
    assert_equal 1, printed.size, with_log(server, "the generated token is printed exactly once")
    token = printed.first[TOKEN_LINE, 1]
    assert_equal token, server.control_token
    assert_equal token, YAML.safe_load(File.read(state))["control_auth_token"]
    assert_equal "600", format("%o", File.stat(state).mode & 0o777), "the state file holds the token: owner only"

    %w[/stats /metrics /controller /stop /halt /restart /phased-restart /reload-config /no-such-path].each do |path|
      assert_equal "403", get(server.control_port, path).code, "#{path} without the token"
      assert_equal "403", get(server.control_port, "#{path}?token=#{token.reverse}").code, "#{path} with a wrong token"
    end
    assert PumaPlusServer.alive?(server.pid), "a refused /stop or /halt stopped nothing"
    assert_equal "200", get(server.control_port, "/stats?token=#{token}").code
    out, status = Open3.capture2e(PumaPlusServer::EXE, "ctl", "-S", state, "stats")
    assert status.success?, "ctl -S finds the generated token in the state file: #{out}"
    assert_equal server.pid, JSON.parse(out)["pid"]
  end

  def test_no_token_on_a_non_loopback_control_url_is_a_config_error_before_anything_listens
    config = config_file("workers 1", "activate_control_app \"tcp://0.0.0.0:0\", no_token: true")
    out, status = Open3.capture2e(PumaPlusServer::EXE, "-b", "tcp://127.0.0.1:0", "-C", config, app("probe.ru"))
    refute status.success?, out
    assert_match(/^puma-plus: #{Regexp.escape(config)}:2: activate_control_app no_token: true is allowed only on a loopback address/,
                 out)
    assert_includes out, "tcp://0.0.0.0:0"
    refute_match(/listening on|control app on|ready/, out, "refused before any listener opened")
  end

  def test_without_a_token_on_loopback_a_browser_page_and_a_rebound_host_are_refused
    server = start_server(app("probe.ru"), workers: 1, threads: 1, args: ["--control-token", "none"])
    assert_empty server.output.lines.grep(TOKEN_LINE), "no_token: none generated"
    assert_equal "200", get(server.control_port, "/stats").code, "no token needed on loopback"
    # DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 sends its own Host.
    assert_equal "403", get(server.control_port, "/stats", "Host" => "evil.example:#{server.control_port}").code
    # What a page's <img src=".../stop"> or fetch() sends; pumactl and ctl send neither header.
    assert_equal "403", get(server.control_port, "/stop", "Sec-Fetch-Site" => "cross-site").code
    assert_equal "403", get(server.control_port, "/halt", "Origin" => "http://evil.example").code
    assert PumaPlusServer.alive?(server.pid), "nothing stopped"
    out, status = Open3.capture2e(PumaPlusServer::EXE, "ctl", "--control-url", "tcp://127.0.0.1:#{server.control_port}", "stop")
    assert_equal [true, "Command stop sent success\n"], [status.success?, out]
    assert server.wait(20)&.success?, with_log(server, "ctl stop without a token on loopback")
  end

  def test_headless_chromium_on_a_page_that_loads_stop_does_not_stop_the_server
    chromium = ["/usr/bin/chromium", self.class.find_executable("chromium")].compact.find { |f| File.executable?(f) }
    chromium or return skip_or_fail("no chromium")
    server = start_server(app("probe.ru"), workers: 1, threads: 1, args: ["--control-token", "none"])
    # A witness listener on the same loopback: proves the page's requests leave the browser, and shows the
    # headers they carry.
    witness = TCPServer.new("127.0.0.1", 0)
    seen = Thread.new do
      client = witness.accept
      head = +""
      head << client.gets.to_s until head.end_with?("\r\n\r\n") || client.eof?
      client.write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
      client.close
      head
    end
    page = File.join(temp_dir, "page.html")
    File.write(page, <<~HTML)
      <img src="http://127.0.0.1:#{witness.addr[1]}/witness">
      <img src="http://127.0.0.1:#{server.control_port}/stop">
      <script>fetch("http://127.0.0.1:#{server.control_port}/halt", {method: "POST", mode: "no-cors"})</script>
    HTML
    out, = Open3.capture2e(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=#{temp_dir}",
                           "--virtual-time-budget=3000", "--dump-dom", "file://#{page}")
    head = seen.join(20)&.value
    assert head, "chromium sent no request from the page: #{out}"
    assert_match(/^sec-fetch-site: cross-site\r$/i, head, "what the control app sees from a page")
    assert_equal "200", get(server.control_port, "/stats").code, with_log(server, "the server still answers")
    refute_match(/stopping \(control app/, server.output)
  ensure
    witness&.close
  end

  def test_a_controller_jar_loads_only_from_controller_jar_dir
    jars = temp_dir
    elsewhere = temp_dir
    server = start_server(app("probe.ru"), workers: 1, threads: 1,
                                           config: config_file("autoscale min: 1, max: 2", "controller_jar_dir #{jars.inspect}"))
    shipped = File.join(PumaPlusServer::ROOT, "gem/vendor/java/bundles/controller.jar")
    variant = File.join(elsewhere, "controller.jar")
    FileUtils.cp(shipped, variant)
    File.write(File.join(elsewhere, "policy.properties"), "policy=one-unit/1\n")
    java_home = ENV.fetch("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")
    out, status = Open3.capture2e(File.join(java_home, "bin/jar"), "uf", variant, "-C", elsewhere, "policy.properties")
    assert status.success?, "jar uf: #{out}"
    File.symlink(variant, File.join(jars, "link.jar"))
    FileUtils.mkdir_p(File.join(jars, "sub"))
    ctl = ->(*args) { Open3.capture2e(PumaPlusServer::EXE, "ctl", "--control-url", "tcp://127.0.0.1:#{server.control_port}",
                                      "-T", server.control_token, "controller", *args) }

    [variant, File.join(jars, "sub/../../#{File.basename(elsewhere)}/controller.jar"), File.join(jars, "link.jar")].each do |jar|
      out, status = ctl.call(jar)
      refute status.success?, "#{jar} is outside controller_jar_dir: #{out}"
      assert_match(/refused \(403\).*not inside controller_jar_dir/, out)
    end
    out, = ctl.call
    assert_equal "tiered/1", JSON.parse(out)["policy"], "no refused jar was loaded"

    inside = File.join(jars, "controller.jar")
    FileUtils.cp(variant, inside)
    out, status = ctl.call(inside)
    assert status.success?, with_log(server, "a jar inside controller_jar_dir: #{out}")
    assert_equal "one-unit/1", JSON.parse(out)["policy"]
  end

  def test_without_controller_jar_dir_no_jar_is_loaded
    server = start_server(app("probe.ru"), workers: 1, threads: 1, config: config_file("autoscale min: 1, max: 2"))
    out, status = Open3.capture2e(PumaPlusServer::EXE, "ctl", "--control-url", "tcp://127.0.0.1:#{server.control_port}",
                                  "-T", server.control_token, "controller",
                                  File.join(PumaPlusServer::ROOT, "gem/vendor/java/bundles/controller.jar"))
    refute status.success?, out
    assert_match(/refused \(403\).*no controller_jar_dir is configured/, out)
  end

  def test_metrics_url_serves_metrics_without_the_token_and_no_control_path
    server = start_server(app("probe.ru"), workers: 1, threads: 1, args: ["--metrics-url", "tcp://127.0.0.1:0"])
    line = server.await_line(%r{\Apuma-plus: metrics on http://127\.0\.0\.1:(\d+)/metrics\z}, 0)
    assert line, with_log(server, "no 'metrics on' line")
    port = Integer(line[1])
    assert_equal 200, server.request("GET", "/timing/ok").status
    metrics = get(port, "/metrics")
    assert_equal "200", metrics.code
    assert_match(/^# TYPE puma_plus_queue_seconds histogram$/, metrics.body)
    %w[/stats /stop /halt /restart /phased-restart /reload-config /controller].each do |path|
      assert_equal "404", get(port, path).code, path
      assert_equal "404", get(port, "#{path}?token=#{server.control_token}").code, "#{path} with the control token"
    end
    assert PumaPlusServer.alive?(server.pid)
    promtool = IntegrationTest.find_executable("promtool") or return skip_or_fail("promtool is not installed")
    output, status = Open3.capture2e(promtool, "check", "metrics", stdin_data: metrics.body)
    assert status.success?, "promtool check metrics on metrics_url: #{output}"
  end
end
