# Packaging: `gem build` makes puma-plus-<version>.gem with the Ruby code, the host jars and the bundle
# jars; `gem install --local` puts it into a fresh GEM_HOME without the network, its C extensions built for
# this Ruby; `puma-plus` from PATH then serves the hello example, and `rackup -s puma_plus` (Debian's rack
# 2.2) finds the installed handler.
require "server_helper"
require "rubygems/package"

class PackagingTest < IntegrationTest
  TEST_TIMEOUT = 180
  GEM_SOURCE = File.join(PumaPlusServer::ROOT, "gem")
  HELLO = File.join(PumaPlusServer::ROOT, "examples/hello/config.ru")

  def run!(env, *command, chdir:)
    output = IO.popen(env, command, chdir: chdir, err: %i[child out], &:read)
    assert $?.success?, "#{command.join(' ')} failed:\n#{output}"
    output
  end

  def test_built_gem_installs_offline_into_a_fresh_gem_home_and_serves_from_path
    dir = temp_dir
    version = File.read(File.join(GEM_SOURCE, "lib/puma_plus/version.rb"))[/VERSION = "([^"]+)"/, 1]
    gem_file = File.join(dir, "puma-plus-#{version}.gem")
    run!({}, "gem", "build", "puma-plus.gemspec", "--output", gem_file, chdir: GEM_SOURCE)

    files = Gem::Package.new(gem_file).contents
    %w[exe/puma-plus exe/puma-plus-shepherd lib/puma_plus/shepherd.rb lib/rack/handler/puma_plus.rb
       vendor/java/bundles/protocol-h1.jar].each { |f| assert_includes files, f }
    assert(files.any? { |f| f.start_with?("vendor/java/lib/puma-plus-host-") && f.end_with?(".jar") }, files.join("\n"))
    %w[epoll io_uring].each do |transport|
      assert(files.any? { |f| f.start_with?("vendor/java/lib/netty-transport-native-#{transport}") },
             "Netty's native #{transport} jar")
    end

    home = File.join(dir, "gems")
    # No proxy and no source: the install must work from the file alone (rack comes from Debian).
    offline = { "GEM_HOME" => home, "http_proxy" => "http://127.0.0.1:9", "https_proxy" => "http://127.0.0.1:9" }
    run!(offline, "gem", "install", "--local", "--no-document", gem_file, chdir: dir)
    exe = File.join(home, "bin", "puma-plus")
    assert File.executable?(exe), "gem install put no puma-plus into #{home}/bin"
    # Both C extensions, built by `gem install` for this Ruby where the gem loads them (the GVL clock from
    # Ruby 3.2 on: 3.1 has no GVL instrumentation API).
    installed = File.join(home, "gems", "puma-plus-#{version}", "lib", "puma_plus")
    abi = RbConfig::CONFIG["ruby_version"]
    assert File.file?(File.join(installed, "wire", abi, "native_codec.so")), "gem install built the wire codec"
    assert_equal GVL_WAIT_MEASURED, File.file?(File.join(installed, "worker", abi, "gvl_clock.so")),
                 "gem install builds the GVL clock exactly on a Ruby with the GVL instrumentation API"

    env = { "GEM_HOME" => home, "PATH" => "#{home}/bin:#{ENV.fetch('PATH')}" }
    server = start_server(command: ["puma-plus", "-b", "tcp://127.0.0.1:0", "--control-url", "tcp://127.0.0.1:0", HELLO],
                          chdir: dir, env: env)
    assert_includes File.read("/proc/#{server.pid}/cmdline"), File.join(home, "gems", "puma-plus-#{version}"),
                    "the host runs from the installed gem"
    response = server.request("GET", "/")
    assert_equal [200, "Hello from puma-plus\n"], [response.status, response.body]
    server.stop

    rackup = self.class.find_executable("rackup") or skip_or_fail("no rackup on PATH (Debian ruby-rack)")
    # On this Ruby, whose `gem install` compiled the extension, not on the one Debian's rackup names in its #!.
    served = start_server(command: [RbConfig.ruby, rackup, "-s", "puma_plus", "-o", "127.0.0.1", "-p", "0", HELLO],
                          chdir: dir, env: env)
    assert_equal 200, served.request("GET", "/").status
  end
end
