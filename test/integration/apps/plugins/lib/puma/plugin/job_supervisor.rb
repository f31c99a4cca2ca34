# frozen_string_literal: true

# A puma plugin shaped like solid_queue's (Rails 8's `plugin :solid_queue`), written against puma's plugin
# API only: it adds a directive to Puma::DSL, reads it back from launcher.options, forks a supervisor process
# once the server has booted (puma 7's after_booted, or on_booted before 7), watches it from a background
# thread, and stops it (INT, then waits for it) when the server stops or restarts. The supervisor writes
# its pid to JOB_SUPERVISOR_PIDFILE so that plugins_test.rb can watch it.
require "puma/plugin"

module Puma
  class DSL
    def job_supervisor_mode(mode = :fork)
      @options[:job_supervisor_mode] = mode.to_sym
    end
  end
end

Puma::Plugin.create do
  attr_reader :supervisor_pid, :log_writer

  def start(launcher)
    @log_writer = launcher.log_writer
    @server_pid = $$
    raise "job_supervisor_mode #{launcher.options[:job_supervisor_mode].inspect}" unless launcher.options[:job_supervisor_mode] == :fork

    in_background { watch_supervisor }
    if Gem::Version.new(Puma::Const::VERSION) < Gem::Version.new("7")
      launcher.events.on_booted { start_supervisor }
      launcher.events.on_stopped { stop_supervisor }
      launcher.events.on_restart { stop_supervisor }
    else
      launcher.events.after_booted { start_supervisor }
      launcher.events.after_stopped { stop_supervisor }
      launcher.events.before_restart { stop_supervisor }
    end
  end

  private

  def start_supervisor
    @supervisor_pid = fork do
      stop = false
      trap("INT") { stop = true }
      File.write(ENV.fetch("JOB_SUPERVISOR_PIDFILE"), Process.pid.to_s)
      sleep 0.1 until stop || Process.ppid != @server_pid
    end
    log_writer.log("job supervisor started (pid #{@supervisor_pid})")
  end

  def stop_supervisor
    return unless supervisor_pid

    log_writer.log("stopping the job supervisor")
    Process.kill(:INT, supervisor_pid)
    Process.wait(supervisor_pid)
  rescue Errno::ECHILD, Errno::ESRCH
    nil
  end

  # As solid_queue's monitor: a supervisor that went away stops the server.
  def watch_supervisor
    loop do
      if supervisor_pid && Process.waitpid(supervisor_pid, Process::WNOHANG)
        log_writer.log("the job supervisor went away")
        break
      end
      sleep 1
    end
  rescue Errno::ECHILD
    log_writer.log("the job supervisor went away")
  end
end
