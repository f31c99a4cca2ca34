# frozen_string_literal: true

# Spare workers on the shepherd's side (PumaPlus::Shepherd::Spares), through the real executable: spares
# parked for the next indexes with the app loaded and no link dialled, handed over on a scale-up, let go
# when no longer wanted, never kept beyond autoscale's max, and forked from the mold once there is one.

require_relative "../shepherd_case"

class PumaPlus::Shepherd::SparesTest < PumaPlus::ShepherdCase
  # Each process that loads the app appends its pid to "loads"; on_worker_boot appends "boot PID INDEX".
  SPARE_APP = <<~RUBY
    File.write("loads", "\#{Process.pid}\\n", mode: "a")
    LOADED_IN = Process.pid
    run ->(env) { [200, {}, ["loaded in \#{LOADED_IN}, served by \#{Process.pid}"]] }
  RUBY

  def setup
    super
    File.write(File.join(@app_dir, "config.ru"), SPARE_APP)
  end

  def start_with_spares(config, argv = %w[-w 1 -t 1])
    File.write(File.join(@app_dir, "spares.rb"), <<~RUBY)
      #{config}
      on_worker_boot { |index| File.write("boots", "\#{Process.pid} \#{index}\\n", mode: "a") }
    RUBY
    link, = start_shepherd(argv + %w[-C spares.rb])
    link
  end

  # { index => pid } of the spares the log says are parked now.
  def parked
    @host.log.scan(/spare worker (\d+) \(pid (\d+)\) parked/).to_h { |index, pid| [Integer(index), Integer(pid)] }
  end

  def lines(name)
    path = File.join(@app_dir, name)
    File.exist?(path) ? File.readlines(path, chomp: true) : []
  end

  def test_spares_load_the_app_and_wait_without_a_link_or_a_boot_hook_until_a_scale_up_hands_them_over
    link = start_with_spares("spare_workers 2")
    _worker, hello = @host.accept_link
    await_log("worker 0 (pid #{hello.pid}) booted in")
    assert eventually { parked.keys.sort == [1, 2] }, "two spares parked for indexes 1 and 2:\n#{@host.log}"
    spares = parked
    assert eventually { (spares.values - lines("loads").map { Integer(_1) }).empty? }, "each spare loads the app"
    assert_equal ["#{hello.pid} 0"], lines("boots"), "a parked spare runs no on_worker_boot hook"
    refute @host.link_pending?(0.5), "a parked spare dials no link"
    assert_match(/puma-plus: spare worker 1/, File.read("/proc/#{spares[1]}/cmdline"))

    link.io.write(Wire::WorkerCount.new(count: 3).encode)
    handed = accept_workers(2).to_h { |worker, h| [h.worker_index, [worker, h.pid]] }
    assert_equal spares, handed.transform_values(&:last), "the scale-up runs the parked processes"
    handed.each_value do |worker, pid|
      worker.request({})
      assert_equal "loaded in #{pid}, served by #{pid}", worker.response.body
    end
    assert eventually { lines("boots").sort == ["#{hello.pid} 0", "#{spares[1]} 1", "#{spares[2]} 2"].sort },
           "on_worker_boot runs in each handed-over spare with its index:\n#{lines('boots')}"
    assert eventually { parked.keys.include?(3) && parked.keys.include?(4) }, "spares for 3 and 4 follow:\n#{@host.log}"
  end

  def test_fewer_workers_let_the_spare_of_a_higher_index_go_and_park_one_for_the_next_index
    link = start_with_spares("spare_workers 1", %w[-w 2 -t 1])
    accept_workers(2).each { |_worker, h| await_log("worker #{h.worker_index} (pid #{h.pid}) booted in") }
    assert eventually { parked.key?(2) }, "a spare for index 2:\n#{@host.log}"
    old = parked[2]
    link.io.write(Wire::WorkerCount.new(count: 1).encode)
    assert eventually { !process_alive?(old) }, "the spare for index 2 is let go once worker 1 retires"
    assert eventually { parked.key?(1) }, "a spare for index 1 is parked instead:\n#{@host.log}"
    refute_includes lines("boots").map { _1.split.first.to_i }, old, "a spare let go ran no boot hook"
  end

  def test_no_spare_is_parked_at_or_above_autoscales_max
    link = start_with_spares("spare_workers 2\nautoscale min: 1, max: 3", %w[-w 2 -t 1])
    accept_workers(2).each { |_worker, h| await_log("worker #{h.worker_index} (pid #{h.pid}) booted in") }
    assert eventually { parked.key?(2) }, "a spare for index 2:\n#{@host.log}"
    link.io.write(Wire::WorkerCount.new(count: 3).encode)
    _worker, hello = @host.accept_link
    assert_equal [2, parked[2]], [hello.worker_index, hello.pid]
    await_log("worker 2 (pid #{hello.pid}) booted in")
    sleep 0.5
    assert_equal [2], parked.keys, "three workers of at most three: no spare"
  end

  def test_a_spare_forked_after_a_refork_comes_from_the_mold
    link = start_with_spares("spare_workers 1\nfork_worker 0", %w[-w 1 -t 1])
    zero_link, zero = @host.accept_link
    await_log("worker 0 (pid #{zero.pid}) booted in")
    assert eventually { parked.key?(1) }
    before_mold = parked[1]
    Process.kill("URG", @host.pid)
    assert_equal Wire::FrameType::GOAWAY, zero_link.read_frame&.type
    zero_link.close
    await_log("mold: ready (pid #{zero.pid}, was worker 0)")
    _new_zero, = @host.accept_link
    assert eventually { !process_alive?(before_mold) }, "the spare forked before the mold is let go"
    assert eventually { parked[1] && parked[1] != before_mold }, "a spare is forked again:\n#{@host.log}"
    link.io.write(Wire::WorkerCount.new(count: 2).encode)
    worker, hello = @host.accept_link
    assert_equal parked[1], hello.pid
    worker.request({})
    assert_equal "loaded in #{zero.pid}, served by #{hello.pid}", worker.response.body, "the spare is the mold's fork"
  end

  def test_a_stop_lets_every_spare_go
    start_with_spares("spare_workers 2")
    _worker, hello = @host.accept_link
    await_log("worker 0 (pid #{hello.pid}) booted in")
    assert eventually { parked.size == 2 }
    spares = parked.values
    Process.kill("TERM", @host.pid)
    assert eventually(10) { spares.none? { process_alive?(_1) } }, "spares outlived the shepherd's stop:\n#{@host.log}"
  end
end
