# frozen_string_literal: true

# rack.errors for one worker link: what an app writes there reaches the server's log (the worker's stderr,
# which the host passes through) as whole lines, each prefixed with the id of the request that wrote it,
# so an operator can match an app's error output to the request. rack.logger writes through it too.
#
# Threading: one instance per link, whose thread sets #request_id before each request; a partial-hijack
# thread writing after its request ended still writes whole lines, under the id then current.

require "logger"
require_relative "log"

module PumaPlus
  class ErrorStream
    NEWLINE = "\n"

    # +log+: the IO lines go to ($stderr).
    def initialize(log = $stderr)
      @log = log
      @partial = +""
      @request_id = nil
      @lock = Mutex.new
    end

    # The id (String) of the request now running on the link, or nil between requests.
    attr_accessor :request_id

    # Writes every complete line of +text+ (anything with to_s) as
    # "puma-plus: request <id>: <line>"; keeps an unfinished last line until a newline or #flush.
    # Returns the bytes taken, as IO#write does.
    def write(*texts)
      size = 0
      @lock.synchronize do
        texts.each do |text|
          text = text.to_s
          size += text.bytesize
          @partial << text
          while (newline = @partial.index(NEWLINE))
            emit(@partial[0, newline])
            @partial = @partial[(newline + 1)..]
          end
        end
      end
      size
    end

    def puts(*lines)
      lines = [""] if lines.empty?
      lines.flatten.each do |line|
        line = line.to_s
        write(line.end_with?(NEWLINE) ? line : line + NEWLINE)
      end
      nil
    end

    def print(*texts)
      write(*texts)
      nil
    end

    def <<(text)
      write(text)
      self
    end

    # Emits an unfinished line now.
    def flush
      @lock.synchronize do
        unless @partial.empty?
          emit(@partial)
          @partial = +""
        end
      end
      self
    end

    def sync
      true
    end

    def sync=(_value); end

    # A no-op: the stream belongs to the link (Logger wants close; Rack forbids apps to call it).
    def close; end

    # A Logger for rack.logger that writes through this stream (and so carries the request id).
    def logger
      @logger ||= ::Logger.new(self)
    end

    private

    def emit(line)
      Log.line("request #{@request_id || '-'}: #{line.dup.force_encoding(Encoding::UTF_8).scrub}", @log)
    end
  end
end
