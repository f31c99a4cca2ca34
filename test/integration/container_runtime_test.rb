# The Dockerfile's runtime step on this machine, where no container can be built: deploy/jlink-runtime cuts
# the JDK to the modules jdeps finds in the built host and bundles, and the real server runs on that
# runtime (JAVA_HOME), serving HTTP/1.1 and /metrics from its protocol bundles; and the Dockerfile's steps
# and copies name scripts and paths that exist.
require "timing_helper"
require "open3"

class ContainerRuntimeTest < TimingTest
  TEST_TIMEOUT = 180
  JDK = "/usr/lib/jvm/temurin-25-jdk-amd64"
  ROOT = PumaPlusServer::ROOT

  def test_the_dockerfile_builds_with_the_projects_own_scripts_and_copies_paths_that_exist
    dockerfile = File.read(File.join(ROOT, "Dockerfile"))
    run = dockerfile[/^RUN (script\/setup.*)$/, 1]
    assert_equal "script/setup && script/build && deploy/jlink-runtime /opt/puma-plus/jre", run
    %w[script/setup script/build deploy/jlink-runtime].each do |script|
      assert File.executable?(File.join(ROOT, script)), "#{script} is not executable"
    end
    sources = dockerfile.scan(/^COPY (?!--from)(\S+) /).flatten - ["."]
    refute_empty sources
    sources.each { |path| assert File.exist?(File.join(ROOT, path)), "the Dockerfile copies #{path}, which does not exist" }
    built = dockerfile.scan(%r{^COPY --from=build /src/(\S+) }).flatten
    assert_equal %w[gem/exe gem/lib gem/vendor], built
    built.each { |path| assert File.exist?(File.join(ROOT, path)), "#{path} (script/build has run) is missing" }
  end

  def test_the_host_serves_requests_on_the_jlinked_runtime_the_dockerfile_builds
    runtime = File.join(temp_dir, "jre")
    output, status = Open3.capture2e(File.join(PumaPlusServer::ROOT, "deploy/jlink-runtime"), runtime)
    assert status.success?, "deploy/jlink-runtime failed:\n#{output}"
    modules = IO.popen([File.join(runtime, "bin/java"), "--list-modules"], &:read).lines.map { |l| l[/\A[\w.]+/] }
    all = IO.popen([File.join(JDK, "bin/java"), "--list-modules"], &:read).lines.map { |l| l[/\A[\w.]+/] }
    assert_includes modules, "jdk.unsupported", "Netty needs sun.misc.Unsafe"
    refute_includes modules, "jdk.compiler", "the runtime is cut to what the host uses"
    assert_operator modules.size, :<, all.size / 2, "modules: #{modules.join(' ')}"

    server = start_server(app("probe.ru"), workers: 1, threads: 2, env: { "JAVA_HOME" => runtime })
    host_java = File.readlink("/proc/#{server.pid}/exe")
    assert host_java.start_with?(runtime), "the host runs #{host_java}, not the jlinked runtime"
    3.times { assert_equal 200, server.request("GET", "/timing/ok").status }
    assert_match(/^puma_plus_utilization /, metrics(server))
  end
end
