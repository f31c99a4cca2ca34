# frozen_string_literal: true

# The request body as rack.input: the worker appends the payloads of the request's BODY frames, then
# hands the app a rewound, rewindable, binary IO (Rack 2 requires rewind). Bodies up to SPOOL_THRESHOLD
# stay in memory; a larger one moves to a nameless temporary file so a big upload does not sit in the heap.

require "stringio"
require "tmpdir"

module PumaPlus
  class RequestBody
    # Bytes kept in memory before spooling to a file: puma's MAX_BODY (112 KiB), beyond which puma hands the
    # app a Tempfile; the host spools a body past the same size (RequestBodyBuffer.MEMORY_BYTES).
    SPOOL_THRESHOLD = 112 * 1024
    # Where spooled bodies go: Dir.tmpdir, read once at load (it reads a class variable, which a Ractor slot
    # may not). The file is opened O_TMPFILE: it has no name from the start, so only our descriptor keeps
    # it and nothing is left if the worker dies. (Tempfile draws its name from a constant Random that a
    # Ractor may not touch.)
    SPOOL_DIR = Dir.tmpdir.freeze
    SPOOL_FLAGS = File::RDWR | File::TMPFILE

    # A fresh empty rack.input, for a REQUEST that carries END_STREAM.
    def self.empty
      StringIO.new(String.new(encoding: Encoding::BINARY))
    end

    def initialize(spool_threshold: SPOOL_THRESHOLD)
      @spool_threshold = spool_threshold
      @buffer = nil
      @file = nil
      @size = 0
    end

    # Bytes appended so far.
    attr_reader :size

    # Appends one BODY payload (a binary String).
    def <<(data)
      @size += data.bytesize
      if @file
        @file.write(data)
      elsif @size > @spool_threshold
        spool(data)
      elsif @buffer
        @buffer << data
      else
        # Most bodies are one frame: keep the payload string itself, copy only when a second arrives.
        @buffer = data.frozen? ? data.dup : data
      end
      self
    end

    # The rack.input: rewound, binary, rewindable. The caller closes it after the response.
    def input
      if @file
        @file.flush
        @file.rewind
        @file
      else
        StringIO.new(@buffer || String.new(encoding: Encoding::BINARY))
      end
    end

    private

    def spool(data)
      @file = File.open(SPOOL_DIR, SPOOL_FLAGS, 0o600, binmode: true)
      @file.write(@buffer) if @buffer
      @file.write(data)
      @buffer = nil
    end
  end
end
