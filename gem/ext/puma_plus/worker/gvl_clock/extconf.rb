# frozen_string_literal: true

# Makefile for PumaPlus::Worker::NativeGvlClock (gvl_clock.c), the worker's per-thread GVL wait clock. It needs
# Ruby's GVL instrumentation API (rb_internal_thread_add_event_hook, Ruby 3.2 and later): script/native and
# `gem install` build it only for such a Ruby, and without it (Ruby 3.1) the worker reports GVL wait as
# unknown (Worker::GvlClock).
require_relative "../../extconf_support"

unless have_func("rb_internal_thread_add_event_hook", "ruby/thread.h")
  # Ruby 3.1 and older: nothing to build, and nothing to load.
  PumaPlusExtconf.build_nothing
end
# Ruby 3.3 gives the hook the thread an event is about and a slot per thread to keep data in; Ruby 3.2 runs
# the hook on the thread's own native thread, where a C thread-local serves.
have_func("rb_internal_thread_specific_get", "ruby/thread.h")

$CFLAGS << " -O2 -Wall -Wextra -Wno-unused-parameter -std=gnu99"
# One directory per Ruby ABI (3.3.0, ...), as the wire codec's.
create_makefile("puma_plus/worker/#{RbConfig::CONFIG['ruby_version']}/gvl_clock")
