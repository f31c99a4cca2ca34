# frozen_string_literal: true

# Where the shepherd and workers report what an operator must see (a worker replaced, an app exception,
# a broken link): lines on stderr, each written with one write call so lines from concurrent threads and
# processes do not interleave.
module PumaPlus
  module Log
    PREFIX = "puma-plus: "

    # Writes "puma-plus: <message>" to +io+ (default $stderr).
    def self.line(message, io = $stderr)
      io.write("#{PREFIX}#{message}\n")
    rescue IOError, SystemCallError
      nil # stderr is gone; nothing better to do
    end

    # Writes "puma-plus: <context>: <class>: <message>" followed by the backtrace, one frame a line.
    def self.exception(context, error, io = $stderr)
      trace = (error.backtrace || []).map { |frame| "\n    #{frame}" }.join
      line("#{context}: #{error.class}: #{error.message}#{trace}", io)
    end
  end
end
