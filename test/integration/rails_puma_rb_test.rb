# A Rails app's own config/puma.rb (examples/rails/config/puma.rb: threads from RAILS_MAX_THREADS, workers
# from WEB_CONCURRENCY, port, environment, pidfile, preload_app!, on_worker_boot reconnecting Active Record,
# plugin :tmp_restart, which runs) under puma-plus unchanged, nothing reported; and
# `rails server -u puma_plus` (Rails 6.1, through the Rack handler) serves the same app.
require "server_helper"

class RailsPumaRbTest < IntegrationTest
  TEST_TIMEOUT = 120
  RAILS = File.join(PumaPlusServer::ROOT, "examples/rails")

  def test_a_typical_rails_puma_rb_runs_unchanged_with_its_plugin
    dir = temp_dir
    server = start_server("config.ru", config: "config/puma.rb", chdir: RAILS,
                                       env: { "RAILS_MAX_THREADS" => "1", "WEB_CONCURRENCY" => "2",
                                              "DATABASE_PATH" => File.join(dir, "db.sqlite3"),
                                              "PIDFILE" => File.join(dir, "server.pid") })
    assert_equal 2, server.slots, "WEB_CONCURRENCY=2 workers x RAILS_MAX_THREADS=1"
    refute_match(/is a puma directive with no equivalent/, server.output)
    assert_equal server.pid.to_s, File.read(File.join(dir, "server.pid")).strip
    page = server.request("GET", "/rows")
    assert_equal 200, page.status, with_log(server, page.body[0, 2000])
    assert_equal 2, server.worker_pids.uniq.size
  end

  def test_rails_server_using_puma_plus_serves_the_app
    dir = temp_dir
    command = [RbConfig.ruby, "bin/rails", "server", "-u", "puma_plus", "-b", "127.0.0.1", "-p", "0",
               "-P", File.join(dir, "rails.pid")]
    server = start_server(command: command, chdir: RAILS,
                          env: { "RUBYLIB" => File.join(PumaPlusServer::ROOT, "gem/lib"),
                                 "DATABASE_PATH" => File.join(dir, "db.sqlite3") })
    page = server.request("GET", "/rows")
    assert_equal 200, page.status, with_log(server, page.body[0, 2000])
    assert_includes page.body, "<form"
    assert_equal server.pid.to_s, File.read(File.join(dir, "rails.pid")).strip,
                 "rails server's pid file names the process that now runs the host (exec keeps the pid)"
  end
end
