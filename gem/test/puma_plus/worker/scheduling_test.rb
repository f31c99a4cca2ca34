# frozen_string_literal: true

# Claims about the CPU scheduling policy a worker takes (Worker::Scheduling): it applies to the calling
# thread and to every thread created after it, as the kernel reports it in /proc, and a policy other than
# the two ordinary ones is left alone. Each claim runs in a child process, so this one keeps its policy.

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

  # Prints the policy before, apply's answer, then the policy by name and as /proc reports it (field 41 of
  # stat) of this thread and of a thread created after the call.
  PROBE = <<~RUBY
    S = PumaPlus::Worker::Scheduling
    policy = ->(path) { File.read(path).split(") ", 2).last.split[38] }
    before = S.current
    why = S.apply(ARGV.fetch(0, "batch"))
    thread = Thread.new { [S.current, policy.("/proc/thread-self/stat")] }.value
    puts [before, why.inspect, S.current, policy.("/proc/thread-self/stat"), *thread].join(" ")
  RUBY

  def test_batch_applies_to_the_calling_thread_and_the_threads_it_creates_later
    assert_equal "normal nil batch 3 batch 3", ruby(PROBE).strip
  end

  def test_normal_puts_a_batch_thread_back_under_the_ordinary_policy
    assert_equal "batch nil normal 0 normal 0", ruby(PROBE.sub('ARGV.fetch(0, "batch")', '"normal"'), prefix: %w[chrt -b 0]).strip
  end

  def test_an_idle_policy_is_left_as_it_is_and_the_reason_returned
    line = ruby(PROBE, prefix: %w[chrt -i 0]).strip
    assert_equal "5 \"the process runs under scheduling policy 5, which is left as it is\" 5 5 5 5", line
  end
end
