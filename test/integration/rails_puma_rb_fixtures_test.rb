# The config/puma.rb files the Rails 6.1, 7.0, 7.1, 7.2, 8.0 and 8.1 generators write (apps/rails_puma_rb/,
# rendered from the public templates), and one written with puma 7's hook names, boot unchanged from an app
# directory with plain `puma-plus` (no -C: config/puma.rb is read, docs/CONFIG.md "Which config files") and
# serve; nothing in them is an error, and the only reports are the ones docs/CONFIG.md "Puma names" lists.
# The puma 7 file's hooks run where and when docs/CONFIG.md "Hooks" says.
require "server_helper"
require "fileutils"

class RailsPumaRbFixturesTest < IntegrationTest
  TEST_TIMEOUT = 180
  FIXTURES = File.join(IntegrationTest::APPS, "rails_puma_rb")
  RAILS_VERSIONS = %w[6.1 7.0 7.1 7.2 8.0 8.1].freeze

  # An app directory as `rails new` leaves it (config/, tmp/pids/) with the probe app as config.ru and
  # +fixture+ as config/puma.rb.
  def app_dir(fixture)
    dir = temp_dir
    FileUtils.mkdir_p([File.join(dir, "config"), File.join(dir, "tmp", "pids")])
    FileUtils.cp(app("probe.ru"), File.join(dir, "config.ru"))
    FileUtils.cp(File.join(FIXTURES, fixture), File.join(dir, "config", "puma.rb"))
    dir
  end

  def plain_puma_plus(dir, env = {})
    # PORT=0: the file's own `port ENV.fetch("PORT", 3000)` picks a free port
    start_server(command: [PumaPlusServer::EXE], chdir: dir, env: { "PORT" => "0" }.merge(env))
  end

  def test_the_config_puma_rb_of_each_rails_generator_boots_unchanged_and_serves
    RAILS_VERSIONS.each do |version|
      dir = app_dir("rails-#{version}.rb")
      server = plain_puma_plus(dir)
      response = server.request("GET", "/")
      assert_equal 200, response.status, with_log(server, "Rails #{version}'s config/puma.rb")
      reported = server.output.lines.grep(/is a puma directive with no equivalent/)
      assert_empty reported, with_log(server, "Rails #{version}'s config/puma.rb uses nothing puma-plus lacks")
      threads = version >= "7.2" ? 3 : 5 # the generator's default RAILS_MAX_THREADS
      assert_equal threads, server.slots, with_log(server, "Rails #{version}: threads from the file")
      if %w[6.1 7.0 7.1].include?(version) # they write pidfile tmp/pids/server.pid
        assert_equal server.pid.to_s, File.read(File.join(dir, "tmp/pids/server.pid")).strip
      end
      assert File.exist?(File.join(dir, "tmp/restart.txt")), "Rails #{version}: plugin :tmp_restart runs"
      server.stop
      diag("Rails #{version} config/puma.rb: served, #{server.slots} slots")
    end
  end

  def test_a_puma_7_config_with_its_hook_names_boots_and_each_hook_runs_in_its_process
    dir = app_dir("puma7_hooks.rb")
    hook_log = File.join(dir, "hooks.log")
    server = plain_puma_plus(dir, "HOOK_LOG" => hook_log)
    assert_equal 200, server.request("GET", "/").status
    lines = -> { File.exist?(hook_log) ? File.readlines(hook_log, chomp: true) : [] }
    assert eventually(timeout: 10) { lines.call.any? { |l| l.start_with?("after_booted ") } }, with_log(server, lines.call.join("\n"))
    %w[idle_timeout max_keep_alive enable_keep_alives supported_http_methods].each do |name|
      assert_match(/config\/puma\.rb:\d+: #{name} is a puma directive with no equivalent in puma-plus \(/, server.output)
    end
    # Supported (fork_worker's hooks), but without fork_worker there is no refork: they never run.
    refute_match(/_refork is a puma directive/, server.output)
    Process.kill("TERM", server.pid)
    refute_nil server.wait(60), with_log(server, "no stop")
    names = lines.call.map { |l| l.split(" ")[0...-1].join(" ") }
    pid_of = ->(name) { lines.call.select { |l| l.start_with?("#{name} ") }.map { |l| Integer(l.split.last) }.uniq }
    shepherd = pid_of.("before_fork")
    assert_equal 1, shepherd.size, names.join("\n")
    %w[after_booted after_stopped].each { |name| assert_equal shepherd, pid_of.(name), name }
    ["before_worker_fork 0", "before_worker_fork 1", "after_worker_fork 0", "after_worker_boot 1",
     "after_worker_shutdown 0", "after_worker_shutdown 1"].each do |name|
      assert_equal shepherd, pid_of.(name), "#{name} runs in the shepherd:\n#{names.join("\n")}"
    end
    workers = pid_of.("before_worker_boot 0") + pid_of.("before_worker_boot 1")
    assert_equal 2, workers.uniq.size, names.join("\n")
    assert_equal workers.sort, (pid_of.("before_worker_shutdown 0") + pid_of.("before_worker_shutdown 1")).sort
    assert_equal 2, names.count { |n| n.start_with?("before_thread_start") }, "one slot thread per worker (threads 1, 1)"
    assert_equal workers.sort, pid_of.("before_thread_start").sort
    assert_equal workers.sort, pid_of.("before_thread_exit").sort
    assert_equal 1, names.count("after_booted"), "after_booted runs once"
    assert_empty names.grep(/_refork\z/), "a refork hook ran without fork_worker"
    refute_includes names, "before_restart", "a stop is no restart"
    assert names.index("after_booted") > names.rindex { |n| n.start_with?("before_worker_boot") }, names.join("\n")
    assert names.index("after_stopped") > names.rindex { |n| n.start_with?("after_worker_shutdown") }, names.join("\n")
  end

  def test_before_restart_runs_in_the_old_generation_on_a_hot_restart_and_after_stopped_does_not
    dir = app_dir("puma7_hooks.rb")
    hook_log = File.join(dir, "hooks.log")
    server = plain_puma_plus(dir, "HOOK_LOG" => hook_log)
    first = File.readlines(hook_log, chomp: true).grep(/\Abefore_fork /).map { |l| l.split.last }
    refute_empty first, "generation 1 logged no before_fork"
    Process.kill("USR2", server.pid)
    assert server.await_line(/\Apuma-plus: generation 1 retired; hot restart done\z/, 60), with_log(server, "no hot restart")
    lines = File.readlines(hook_log, chomp: true)
    assert_equal first, lines.grep(/\Abefore_restart /).map { |l| l.split.last }, lines.join("\n")
    assert_empty lines.grep(/\Aafter_stopped /), "the retired generation ran after_stopped:\n#{lines.join("\n")}"
  end
end
