# Puma plugins run unchanged under puma-plus (docs/CONFIG.md, "Plugins"), with the real host and workers:
# puma's own tmp_restart (Debian's puma package ships it; loaded from there) turns a touch of
# tmp/restart.txt into a hot restart that fails no request under 50 requests per second, and a plugin
# shaped like solid_queue's starts its supervisor process once the server has booted and stops it with the
# server.
require "server_helper"
require "load_loop"
require "fileutils"

class PluginsTest < IntegrationTest
  TEST_TIMEOUT = 120
  PLUGINS = File.join(IntegrationTest::APPS, "plugins")

  # An app directory with config.ru (the probe app) and +puma_rb+ as config/puma.rb: read without -C.
  def app_dir(puma_rb)
    dir = temp_dir
    FileUtils.mkdir_p(File.join(dir, "config"))
    FileUtils.cp(app("probe.ru"), File.join(dir, "config.ru"))
    File.write(File.join(dir, "config", "puma.rb"), puma_rb)
    dir
  end

  def test_tmp_restart_touching_tmp_restart_txt_under_50_rps_hot_restarts_with_no_failed_request
    return skip_or_fail("Debian's puma package (tmp_restart) is not installed") unless system("dpkg -L puma >/dev/null 2>&1")
    dir = app_dir("workers 2\nthreads 2, 2\nplugin :tmp_restart\n")
    FileUtils.mkdir_p(File.join(dir, "tmp"))
    server = start_server(chdir: dir)
    refute_match(/plugin is a puma directive/, server.output)
    restart_txt = File.join(dir, "tmp", "restart.txt")
    assert eventually(timeout: 10) { File.exist?(restart_txt) }, with_log(server, "tmp_restart did not create #{restart_txt}")
    load = LoadLoop.new(server.port, rps: 50).start
    assert eventually(timeout: 10, interval: 0.05) { load.ok >= 25 }, with_log(server, "the load never got going")
    old_pids = server.worker_pids
    later = Time.now + 5 # strictly after the mtime the plugin saw at boot, whatever the clock's granularity
    File.utime(later, later, restart_txt)
    assert server.await_line(/\Apuma-plus: generation 1 retired; hot restart done\z/, 60),
           with_log(server, "touching tmp/restart.txt gave no hot restart")
    served_before = load.ok
    assert eventually(timeout: 10, interval: 0.05) { load.ok >= served_before + 50 }
    result = load.stop
    assert_empty result.failures, with_log(server, "failed requests during the plugin's hot restart")
    assert_empty server.worker_pids & old_pids, "the new generation runs new worker processes"
    diag("tmp_restart: #{result.ok} requests served at 50 rps, 0 failed")
  end

  def test_a_solid_queue_shaped_plugin_starts_its_process_with_the_server_and_it_is_gone_after_the_stop
    dir = app_dir(File.read(File.join(PLUGINS, "puma.rb")))
    pidfile = File.join(dir, "supervisor.pid")
    server = start_server(chdir: dir, args: ["-I", File.join(PLUGINS, "lib")], env: { "JOB_SUPERVISOR_PIDFILE" => pidfile })
    assert eventually(timeout: 20) { File.size?(pidfile) }, with_log(server, "the plugin started no supervisor")
    supervisor = Integer(File.read(pidfile))
    assert PumaPlusServer.alive?(supervisor), "the supervisor runs beside the server"
    refute_includes server.worker_pids, supervisor, "the supervisor is the plugin's process, not a worker"
    assert_equal 200, server.request("GET", "/").status
    Process.kill("TERM", server.pid)
    status = server.wait(60)
    refute_nil status, with_log(server, "the server did not stop")
    assert status.success?, with_log(server, "the server exited #{status.inspect}")
    refute PumaPlusServer.alive?(supervisor), with_log(server, "the supervisor outlived the server")
    assert_match(/stopping the job supervisor/, server.output)
  end
end
