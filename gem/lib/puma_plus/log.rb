# frozen_string_literal: true

# Where the shepherd and workers report what an operator must see (a worker replaced, an app exception,
# a broken link): lines on stderr, each written with one write call so lines from concurrent threads and
# processes do not interleave.
require "json"
require "time"

module PumaPlus
  module Log
    PREFIX = "puma-plus: "

    class << self
      # log_format json: each line is {"time", "pid", "source", "message"} (set once by the shepherd, before
      # it forks, so workers inherit it).
      attr_accessor :json
      # Who writes, for the JSON form: "shepherd", "worker 0" ... (a worker sets it after fork).
      attr_accessor :source
    end

    # Writes "puma-plus: <message>" to +io+ (default $stderr), or its JSON form.
    def self.line(message, io = $stderr)
      if json
        record = { time: Time.now.utc.iso8601(3), pid: Process.pid, source: source || "shepherd", message: message }
        io.write("#{JSON.generate(record)}\n")
        return
      end
      io.write("#{PREFIX}#{message}\n")
    rescue IOError, SystemCallError
      nil # stderr is gone; nothing better to do
    end

    # Writes "puma-plus: <context>: <class>: <message>" followed by the backtrace, one frame a line.
    def self.exception(context, error, io = $stderr)
      trace = (error.backtrace || []).map { |frame| "\n    #{frame}" }.join
      line("#{context}: #{error.class}: #{error.message}#{trace}", io)
    end

    # Ruby's own warnings (Kernel#warn, the interpreter's "warning: ...") under log_format json: one JSON
    # line each, like every other line of the process; in text form they stay as Ruby prints them.
    module Warnings
      def warn(message, *args, **options)
        return super unless Log.json

        Log.line(message.chomp)
      end
    end
    Warning.singleton_class.prepend(Warnings)
  end
end
