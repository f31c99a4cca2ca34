# frozen_string_literal: true

# fork_worker's mold on the shepherd's side (PumaPlus::Shepherd::Refork), through the real executable: a
# refork by signal or by request count, batched forks from the mold, and forking again when it dies.

require_relative "../shepherd_case"

class PumaPlus::Shepherd::ReforkTest < PumaPlus::ShepherdCase
  # Rails sets Encoding.default_internal: IOs not in binary mode would then transcode what they write.
  MOLD_CONFIG = <<~RUBY
    Encoding.default_internal = Encoding::UTF_8
    before_refork { $stderr.puts "before_refork in \#{Process.pid}" }
    after_refork { $stderr.puts "after_refork in \#{Process.pid}" }
  RUBY

  def parent_of(pid)
    File.read("/proc/#{pid}/stat").split(") ", 2).last.split(" ")[1].to_i
  end

  # Starts -w 2 -t 1 with +fork_worker+; returns { index => [HostEnd, pid] } once both workers booted.
  def start_mold_shepherd(fork_worker)
    File.write(File.join(@app_dir, "mold.rb"), "#{fork_worker}\n#{MOLD_CONFIG}")
    @shepherd_link, = start_shepherd(%w[-w 2 -t 1 -C mold.rb])
    workers = accept_workers(2).to_h { |link, hello| [hello.worker_index, [link, hello.pid]] }
    workers.each { |index, (_, pid)| await_log("worker #{index} (pid #{pid}) booted in") }
    workers
  end

  # Worker 0 drains its link, becomes the mold, and every worker is forked from it: returns the new
  # workers' [HostEnd, Hello] by index, after the old worker 1 has drained too.
  def follow_refork(first)
    zero_link, zero_pid = first[0]
    assert_equal Wire::FrameType::GOAWAY, zero_link.read_frame&.type, "worker 0 drains its link:\n#{@host.log}"
    zero_link.close
    await_log("mold: ready (pid #{zero_pid}, was worker 0)")
    forked = accept_workers(2).to_h { |link, hello| [hello.worker_index, [link, hello]] }
    one_link, = first[1]
    assert_equal Wire::FrameType::GOAWAY, one_link.read_frame&.type, "the old worker 1 retires once its replacement booted"
    one_link.close
    await_log("refork done")
    forked
  end

  def test_a_refork_makes_worker_0_the_mold_and_every_worker_is_then_forked_warm_from_it_as_the_shepherds_child
    first = start_mold_shepherd("fork_worker 0")
    zero_pid = first[0][1]
    Process.kill("URG", @host.pid) # puma's refork signal (the host forwards it: REFORK)
    forked = follow_refork(first)
    assert_equal [0, 1], forked.keys.sort
    await_log("before_refork in #{zero_pid}")
    await_log("after_refork in #{zero_pid}")
    forked.each_value do |link, hello|
      refute_includes first.values.map(&:last), hello.pid
      # The app was loaded once, in worker 0; the mold's forks serve it without loading it again.
      link.request({})
      assert_equal "loaded in #{zero_pid}, served by #{hello.pid}", link.response.body
      assert eventually { parent_of(hello.pid) == @host.pid }, "worker #{hello.pid} is not the shepherd's child"
    end
    assert_equal @host.pid, parent_of(zero_pid), "the mold is the old worker 0, still the shepherd's"
    assert_match(/puma-plus: mold \(was worker 0\)/, File.read("/proc/#{zero_pid}/cmdline"))
  end

  def test_the_first_worker_to_serve_fork_workers_count_of_requests_asks_for_the_refork_and_only_once
    first = start_mold_shepherd("fork_worker 3")
    zero_link, = first[0]
    3.times do
      zero_link.request({})
      assert_equal 200, zero_link.response.status
    end
    await_log("refork (worker 0 served 3 requests): worker 0")
    forked = follow_refork(first)
    forked.each_value do |link, _hello|
      3.times { link.request({}) && link.response }
      refute link.io.wait_readable(1.5), "a worker forked from the mold asked for a second automatic refork:\n#{@host.log}"
    end
    assert_equal 1, @host.log.scan("served 3 requests").size
  end

  def test_a_scale_up_of_several_workers_forks_every_one_from_the_mold
    first = start_mold_shepherd("fork_worker 0")
    zero_pid = first[0][1]
    Process.kill("URG", @host.pid)
    follow_refork(first)
    @shepherd_link.io.write(Wire::WorkerCount.new(count: 6).encode) # four at once: one batch of fork commands
    added = accept_workers(4)
    assert_equal [2, 3, 4, 5], added.map { |_, hello| hello.worker_index }.sort
    added.each do |link, hello|
      # Without preload_app!, a worker the shepherd forked would load the app itself.
      link.request({})
      assert_equal "loaded in #{zero_pid}, served by #{hello.pid}", link.response.body
      assert eventually { parent_of(hello.pid) == @host.pid }, "worker #{hello.pid} is not the shepherd's child"
    end
    refute_includes @host.log, "workers fork from the shepherd again"
  end

  def test_when_the_mold_dies_the_shepherd_forks_workers_itself_again
    first = start_mold_shepherd("fork_worker 0")
    zero_pid = first[0][1]
    Process.kill("URG", @host.pid)
    forked = follow_refork(first)
    Process.kill("KILL", zero_pid)
    await_log("mold (pid #{zero_pid}) exited on signal KILL; workers fork from the shepherd again")
    _, one = forked[1]
    Process.kill("KILL", one.pid)
    link, replacement = @host.accept_link
    assert_equal 1, replacement.worker_index
    link.request({})
    assert_equal "loaded in #{replacement.pid}, served by #{replacement.pid}", link.response.body,
                 "a worker the shepherd forks loads the app itself (no preload_app)"
  end

  def test_fork_worker_is_off_with_ractors_and_says_why
    File.write(File.join(@app_dir, "mold.rb"), "fork_worker\nractors\n")
    start_shepherd(%w[-w 1 -t 1 -C mold.rb])
    await_log("fork_worker is off: Ractor slots cannot be forked from a running worker; workers fork from the shepherd")
  end
end
