# The config file and its hooks, seen through marker files: the file's top level runs exactly once (in the
# shepherd, not in the host or a worker), and before_fork, on_worker_fork, after_worker_fork,
# on_worker_boot and on_worker_shutdown run in the process, order and with the arguments docs/CONFIG.md
# says; pidfile holds the host's pid.
require "server_helper"

class LifecycleHooksTest < IntegrationTest
  def test_the_config_runs_once_in_the_shepherd_and_each_hook_runs_in_its_process_in_order
    dir = temp_dir
    marks = File.join(dir, "marks")
    config = File.join(dir, "puma-plus.rb")
    File.write(config, <<~RUBY)
      mark = ->(line) { File.open(#{marks.inspect}, "a") { |f| f.flock(File::LOCK_EX); f.puts(line) } }
      mark.call("config \#{Process.pid} \#{Process.ppid}")
      workers 2
      threads 1, 1
      pidfile "#{dir}/host.pid"
      before_fork { mark.call("before_fork \#{Process.pid}") }
      on_worker_fork { |index| mark.call("on_worker_fork \#{index} \#{Process.pid}") }
      after_worker_fork { |index| mark.call("after_worker_fork \#{index} \#{Process.pid}") }
      on_worker_boot { |index| mark.call("on_worker_boot \#{index} \#{Process.pid} \#{Process.ppid}") }
      on_worker_shutdown { |index| mark.call("on_worker_shutdown \#{index} \#{Process.pid}") }
    RUBY
    server = start_server(app("probe.ru"), config: config)
    assert_equal server.pid.to_s, File.read(File.join(dir, "host.pid")).strip
    worker_pids = server.worker_pids.sort
    lines = File.readlines(marks, chomp: true)

    configs = lines.grep(/\Aconfig /)
    assert_equal 1, configs.size, "the config file's top level ran #{configs.size} times:\n#{lines.join("\n")}"
    _, shepherd, parent = configs.first.split
    assert_equal server.pid.to_s, parent, "the config is evaluated in the shepherd, a child of the host"
    refute_includes worker_pids.map(&:to_s), shepherd

    boot_order = lines.map { |l| l.split.first(2).join(" ") }
    assert_equal "config", lines.first.split.first
    assert_equal ["before_fork #{shepherd}"], lines.grep(/\Abefore_fork/)
    %w[0 1].each do |index|
      assert_equal ["on_worker_fork #{index} #{shepherd}"], lines.grep(/\Aon_worker_fork #{index}/)
      assert_equal ["after_worker_fork #{index} #{shepherd}"], lines.grep(/\Aafter_worker_fork #{index}/)
      assert_operator boot_order.index("before_fork #{shepherd}"), :<, boot_order.index("on_worker_fork #{index}")
      assert_operator boot_order.index("on_worker_fork #{index}"), :<, boot_order.index("after_worker_fork #{index}")
    end
    boots = lines.grep(/\Aon_worker_boot/).map(&:split)
    assert_equal [%w[0 1], worker_pids.map(&:to_s), [shepherd, shepherd]],
                 [boots.map { |b| b[1] }.sort, boots.map { |b| b[2] }.sort, boots.map { |b| b[3] }]

    status = server.stop
    assert status&.success?, with_log(server, "TERM should stop the host with status 0")
    lines = File.readlines(marks, chomp: true)
    shutdowns = lines.grep(/\Aon_worker_shutdown/).map(&:split)
    assert_equal [%w[0 1], worker_pids.map(&:to_s)], [shutdowns.map { |s| s[1] }.sort, shutdowns.map { |s| s[2] }.sort]
    assert_equal 1, lines.grep(/\Aconfig /).size, "still one config line after the stop"
    refute File.exist?(File.join(dir, "host.pid")), "the pidfile goes with the host"
  end

  def test_a_puma_directive_without_equivalent_is_reported_at_boot_and_an_unknown_one_stops_the_boot
    dir = temp_dir
    config = File.join(dir, "puma-plus.rb")
    File.write(config, "workers 1\nnakayoshi_fork\n")
    server = start_server(app("probe.ru"), config: config)
    assert_includes server.output, "puma-plus: #{config}:2: nakayoshi_fork is a puma directive with no equivalent in puma-plus " \
                                   "(no GC compaction runs before a fork (with fork_worker, a before_refork hook can run one " \
                                   "in the mold)); ignored"
    server.stop

    File.write(config, "workers 1\nwokers 2\n")
    broken = PumaPlusServer.new(app("probe.ru"), config: config)
    assert_raises(PumaPlusServer::BootError) { broken.start }
    assert_includes broken.output, "#{config}:2: unknown directive \"wokers\""
    refute_nil broken.wait(10)
    refute broken.exit_status.success?
  end
end
