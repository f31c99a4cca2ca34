# frozen_string_literal: true

# How long the calling thread has waited for its worker process's GVL, for the GVL wait each request reports
# to the host in RESPONSE_HEAD (Worker::Link reads it at T4 and T5; docs/METRICS.md). Measured by the C
# extension gem/ext/puma_plus/worker/gvl_clock on Ruby 3.2 and later (Ruby's GVL instrumentation API); on
# Ruby 3.1, or where the extension is not built, nothing is loaded and the wait is unknown (nil), which the
# host reports as unknown, never as 0. On a fiber slot (`fibers`) the reading is the fiber's own wait to
# run on the thread the worker's fiber slots share (Worker::FiberClock), on any Ruby.

require "rbconfig"
require_relative "fiber_clock"

module PumaPlus
  class Worker
    module GvlClock
      # Ruby 3.1 has no rb_internal_thread_add_event_hook: the extension is not even looked for there.
      if Gem::Version.new(RUBY_VERSION) >= Gem::Version.new("3.2")
        begin
          # built by script/native (or `gem install`) for each Ruby ABI
          require_relative "#{RbConfig::CONFIG['ruby_version']}/gvl_clock"
        rescue LoadError
          nil # not built: unknown
        end
      end
      AVAILABLE = defined?(NativeGvlClock) ? true : false

      # Installs the measurement in this process (once; a forked child inherits it). Returns whether GVL wait
      # is measured. Main Ractor only.
      def self.start
        AVAILABLE && NativeGvlClock.start
      end

      # Whether #wait_ns gives readings in the calling thread or fiber (#start ran in this process, or its
      # parent's; or the caller is a fiber slot).
      def self.measuring?
        !FiberClock.wait_ns.nil? || (AVAILABLE && NativeGvlClock.started?)
      end

      # The ns the calling thread has waited for the GVL since #start (on a fiber slot: the ns the fiber has
      # waited to run), an Integer that only grows; nil when not measured. Subtract two readings of one
      # thread (or fiber) for the wait between them. Any thread or Ractor.
      def self.wait_ns
        FiberClock.wait_ns || (NativeGvlClock.wait_ns if AVAILABLE)
      end
    end
  end
end
