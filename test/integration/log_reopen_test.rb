# frozen_string_literal: true

# Claims about SIGHUP with stdout_redirect, as puma's (log rotation): once the files were moved away and the
# host got HUP, new lines from the host (its log and request lines), from a worker that was already running
# (the app's own output) and from the shepherd (a worker it starts later) go to new files at the paths,
# and none of them to the moved files. Without stdout_redirect, HUP stops the server (puma's too).

require_relative "server_helper"
require "net/http"

class LogReopenTest < IntegrationTest
  TEST_TIMEOUT = 120

  APP = <<~RU
    run lambda { |env|
      $stdout.puts "app says #{'#{env["PATH_INFO"]}'} from #{'#{Process.pid}'}"
      $stderr.puts "app warns #{'#{env["PATH_INFO"]}'}"
      [200, { "content-type" => "text/plain" }, ["ok"]]
    }
  RU

  def test_hup_reopens_the_redirect_files_in_the_host_the_shepherd_and_the_workers
    dir = temp_dir
    out = File.join(dir, "out.log")
    err = File.join(dir, "err.log")
    File.write(File.join(dir, "config.ru"), APP)
    File.write(File.join(dir, "puma.rb"), <<~CONFIG)
      bind "tcp://127.0.0.1:0"
      workers 1
      threads 1, 1
      log_requests
      stdout_redirect "#{out}", "#{err}"
    CONFIG
    pid = Process.spawn(PumaPlusServer::EXE, "-C", File.join(dir, "puma.rb"), File.join(dir, "config.ru"),
                        chdir: dir, pgroup: true, in: File::NULL, out: File.join(dir, "console.log"), err: [:child, :out])
    @pid = pid
    port = eventually(timeout: 60, interval: 0.1) do
      text = File.exist?(out) ? File.read(out) : ""
      text.include?("puma-plus: ready, 1 slots") && text[%r{puma-plus: listening on http://127\.0\.0\.1:(\d+)}, 1]
    end
    assert port, "ready in #{out}: #{File.read(File.join(dir, 'console.log'))}"
    assert_equal "ok", Net::HTTP.get(URI("http://127.0.0.1:#{port}/before"))
    assert eventually { File.read(out).include?("app says /before") }
    old_worker = File.read(out)[/app says \/before from (\d+)/, 1]

    File.rename(out, "#{out}.1")
    File.rename(err, "#{err}.1")
    Process.kill("HUP", pid)
    assert eventually(timeout: 10) { File.exist?(out) && File.read(out).include?("SIGHUP: stdout_redirect files reopened") },
           "the host reopened #{out}"
    # The worker's reopen is its own signal handler; numbered requests until one lands in the new file. Those
    # before it may still go to the moved file, which the worker had open until then; none after it may.
    probe = 0
    assert eventually(timeout: 10, interval: 0.2) {
      Net::HTTP.get(URI("http://127.0.0.1:#{port}/after#{probe += 1}"))
      File.read(out).include?("app says /after#{probe} from #{old_worker}")
    }, "the running worker writes to the new #{out}: #{File.read(out)}"
    first_in_new = probe
    assert eventually { File.exist?(err) && File.read(err).include?("app warns /after") }, "and to the new #{err}"
    assert eventually { File.read(out).include?("GET /after") }, "the host's request lines go to the new file"

    Process.kill("TTIN", pid) # the shepherd logs the worker it starts
    assert eventually(timeout: 30) { (File.read(out) + File.read(err)).match?(/worker 1 \(pid \d+\) booted/) },
           "the shepherd writes to the new files: #{File.read(out)}#{File.read(err)}"

    moved = File.read("#{out}.1") + File.read("#{err}.1")
    late = moved.scan(%r{/after(\d+)}).flatten.map(&:to_i).select { |n| n >= first_in_new }
    assert_empty late, "requests /after#{first_in_new} and later reached the moved files"
    refute_match(%r{SIGHUP|worker 1 \(pid}, moved, "nothing new in the moved files")

    Process.kill("TERM", pid)
    _, status = Process.wait2(pid)
    @pid = nil
    assert status.success?
  end

  def test_without_stdout_redirect_hup_stops_the_server
    server = start_server(app("probe.ru"), workers: 1, threads: 1)
    Process.kill("HUP", server.pid)
    status = server.wait(30)
    assert status&.success?, with_log(server, "HUP stops a server without stdout_redirect")
    assert server.output.lines.any? { |line| line.start_with?("puma-plus: stopping (SIGHUP)") }, with_log(server, "the stop names SIGHUP")
  end

  def teardown
    if @pid
      Process.kill("-KILL", @pid) rescue nil # rubocop:disable Style/RescueModifier
      Process.wait(@pid) rescue nil # rubocop:disable Style/RescueModifier
    end
    super
  end
end
