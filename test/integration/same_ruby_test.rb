# The whole process tree runs on the Ruby that started gem/exe/puma-plus (docs/ARCHITECTURE.md, "Runtime
# contract"): the host spawns the shepherd with that process's RbConfig.ruby, never `ruby` from PATH, and the
# workers are the shepherd's forks. Run under build/ruby-3.3/bin/ruby (README, "Ruby 3.3 with YJIT"), this is
# what makes every server the suite starts a Ruby 3.3 server.
require "server_helper"
require "rbconfig"
require File.join(PumaPlusServer::ROOT, "gem/lib/puma_plus/version")

class SameRubyTest < IntegrationTest
  def test_shepherd_and_workers_run_on_the_ruby_that_started_puma_plus_not_the_one_on_path
    dir = temp_dir
    # A `ruby` first on PATH that fails loudly: the tree must never run it.
    bin = File.join(dir, "bin")
    Dir.mkdir(bin)
    File.write(File.join(bin, "ruby"), "#!/bin/sh\necho 'the ruby on PATH ran' >&2\nexit 97\n")
    File.chmod(0o755, File.join(bin, "ruby"))
    File.write(File.join(dir, "config.ru"), <<~'RACKUP')
      run ->(_env) { [200, { "content-type" => "text/plain" }, ["#{RbConfig.ruby} #{RUBY_DESCRIPTION}"]] }
    RACKUP
    command = [RbConfig.ruby, PumaPlusServer::EXE, "-b", "tcp://127.0.0.1:0", "--control-url", "tcp://127.0.0.1:0",
               "-w", "2", "-t", "1:1", "config.ru"]
    server = start_server(command: command, chdir: dir, env: { "PATH" => "#{bin}:#{ENV.fetch('PATH')}" })

    assert_includes server.output, "puma-plus: puma-plus #{PumaPlus::VERSION} (#{PumaPlus.ruby_description}), shepherd generation 1"
    4.times do
      response = server.request("GET", "/")
      assert_equal [200, "#{RbConfig.ruby} #{RUBY_DESCRIPTION}"], [response.status, response.body]
    end
  end
end
