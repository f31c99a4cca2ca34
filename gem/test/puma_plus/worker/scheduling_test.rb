# frozen_string_literal: true

# Claims about the CPU scheduling policy a worker takes (Worker::Scheduling): it applies to the calling
# thread, to the threads already running (Ruby 3.3's timer thread) and to every thread created after it, as
# the kernel reports it in /proc, and a policy other than the two ordinary ones is left alone. Each claim
# runs in a child process, so this one keeps its policy.

require "test_helper"
require "rbconfig"
require "puma_plus/worker"

class PumaPlus::Worker::SchedulingTest < PumaPlus::TestCase
  LIB = File.expand_path("../../../lib", __dir__)

  # Runs +script+ in a new Ruby (the worker library loaded, under +prefix+ if given); returns its stdout.
  def ruby(script, prefix: [])
    output = IO.popen([*prefix, RbConfig.ruby, "-I#{LIB}", "-rpuma_plus/worker", "-e", script], err: %i[child out], &:read)
    assert $?.success?, output
    output
  end

  # Prints the policy (the number /proc reports, field 41 of stat) before, apply's answer, then the policy of
  # this thread and of a thread created after the call.
  PROBE = <<~RUBY
    policy = -> { File.read("/proc/thread-self/stat").split(") ", 2).last.split[38] }
    before = policy.()
    why = PumaPlus::Worker::Scheduling.apply(ARGV.fetch(0, "batch"))
    puts [before, why.inspect, policy.(), Thread.new { policy.() }.value].join(" ")
  RUBY

  def test_batch_applies_to_the_calling_thread_and_the_threads_it_creates_later
    assert_equal "0 nil 3 3", ruby(PROBE).strip
  end

  def test_batch_applies_to_the_threads_already_running_too
    script = <<~'RUBY'
      Thread.new { sleep }
      Thread.pass until Dir.children("/proc/self/task").size > 1
      PumaPlus::Worker::Scheduling.apply("batch")
      puts Dir["/proc/self/task/*/stat"].map { |stat| File.read(stat).split(") ", 2).last.split[38] }.uniq.join(" ")
    RUBY
    assert_equal "3", ruby(script).strip
  end

  def test_normal_puts_a_batch_thread_back_under_the_ordinary_policy
    assert_equal "3 nil 0 0", ruby(PROBE.sub('ARGV.fetch(0, "batch")', '"normal"'), prefix: %w[chrt -b 0]).strip
  end

  def test_an_idle_policy_is_left_as_it_is_and_the_reason_returned
    line = ruby(PROBE, prefix: %w[chrt -i 0]).strip
    assert_equal "5 \"the process runs under scheduling policy 5, which is left as it is\" 5 5", line
  end
end
