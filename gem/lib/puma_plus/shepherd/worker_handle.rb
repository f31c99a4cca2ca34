# frozen_string_literal: true

# The shepherd's record of one worker index (shepherd → worker): which process runs it now, and its boot,
# check-in, retirement and extra-slots state. Kept by PumaPlus::Shepherd::Workers.

module PumaPlus
  class Shepherd
    # The shepherd's record of one worker index: its current process and its restart state (puma's
    # cluster/worker_handle.rb). Not a slot: a slot is one thread's link to the host, and a process runs several.
    # +boot_pipe+ stays open after the boot byte: the worker writes a check-in byte on it every few seconds
    # (worker_timeout), and +checked_in_at+ is when the last one arrived. +retire_by+: KILL deadline once retired.
    # +extra_pipe+: the write end of the process's extra-slots pipe; +extra+: the share last written on it.
    # +mold_link+: the shepherd's end of the process's mold socket (fork_worker), else nil.
    WorkerHandle = Struct.new(:index, :pid, :started_at, :booted, :boot_pipe, :failures, :restart_at,
                              :checked_in_at, :retire_by, :extra_pipe, :extra, :mold_link, keyword_init: true)
  end
end
