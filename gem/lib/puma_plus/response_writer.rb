# frozen_string_literal: true

# Turns what a Rack app returned into RESPONSE_HEAD / RESPONSE_BODY / RESPONSE_ABORT frames on one worker
# link: the last step of the request path inside the worker. Rack 2 and Rack 3 responses both work.
#
# - Headers: a Rack 2 value holding "\n" and a Rack 3 Array value become repeated pairs; `rack.*`
#   headers are middleware-only and never sent. When the app gave no content-length and the body
#   responds to to_ary, the length is computed and added.
# - Bodies: an Array body (to_ary) goes out with the head in one write. Any other body is streamed: each
#   chunk the app yields is written as soon as it is yielded (split at 1 MiB), never buffered; the head
#   goes out with the first chunk.
# - HEAD requests and 1xx/204/304 responses: the head carries END_STREAM and the body is not iterated.
# - body.close is called exactly once, before END_STREAM is written, so the slot does not look free to
#   the host while close callbacks (e.g. Rails' executor) still run.
# - A body that raises before anything was written gets a 500; after the head was written, RESPONSE_ABORT.
# - Every RESPONSE_HEAD, the worker's own 500s included, carries the request's T4, T5 and body-read ns
#   (docs/PROTOCOL.md, "Timing fields"), measured by Worker::Link and passed in here.
#
# Threading: one instance per link, used by that link's thread only.

require "rack"
require_relative "wire"
require_relative "log"

module PumaPlus
  class ResponseWriter
    # Raised (wrapping the IO error) when writing to the link fails; the link is finished.
    class LinkBroken < StandardError; end

    BINARY = Encoding::BINARY
    MAX_PAYLOAD = Wire::Frame::MAX_PAYLOAD
    END_STREAM = Wire::Frame::END_STREAM
    HEAD_TYPE = Wire::FrameType::RESPONSE_HEAD
    BODY_TYPE = Wire::FrameType::RESPONSE_BODY
    CONTENT_LENGTH = "content-length"
    NO_BODY_STATUS = ->(status) { status < 200 || status == 204 || status == 304 }
    # Errors an app can raise that we answer with 500 / RESPONSE_ABORT; anything else (signals, exit,
    # out of memory) is not ours to swallow.
    APP_ERRORS = [StandardError, ScriptError, SystemStackError].freeze
    ERROR_BODY = "Internal Server Error"
    ERROR_HEADERS = [["content-type", "text/plain"].freeze,
                     [CONTENT_LENGTH, ERROR_BODY.bytesize.to_s].freeze].freeze

    # +io+: the link's socket (sync). +context+: a label for log lines, e.g. "worker 0 thread 3".
    def initialize(io, context: "worker", log: $stderr)
      @io = io
      @context = context
      @log = log
    end

    # Writes the app's response (+status+, +headers+, +body+ as returned by app.call) for +env+. The
    # head carries +app_called_ns+ (T4) and +app_returned_ns+ (T5), CLOCK_MONOTONIC readings, and
    # +body_read_ns+, the ns spent reading the request's BODY frames. Never raises for a misbehaving app:
    # it logs and sends a 500 or RESPONSE_ABORT. Raises LinkBroken when the link itself fails.
    # body.close is called exactly once in every case.
    def write(env, status, headers, body, app_called_ns, app_returned_ns, body_read_ns)
      @app_called_ns = app_called_ns
      @app_returned_ns = app_returned_ns
      @body_read_ns = body_read_ns
      @head_sent = false
      @body_closed = false
      @pending_head = nil
      begin
        status = Integer(status)
        raise ArgumentError, "status #{status} is outside 100..999" unless status.between?(100, 999)

        pairs, has_length = header_pairs(headers)
        if env["REQUEST_METHOD"] == "HEAD" || NO_BODY_STATUS.call(status)
          close_body(body)
          send_bytes(Wire::Frame.encode(HEAD_TYPE, head_payload(status, pairs), END_STREAM))
        elsif body.respond_to?(:to_ary) && (chunks = body.to_ary)
          # Rails 6.1's response body answers to_ary with nil: such a body is streamed below.
          pairs << [CONTENT_LENGTH, chunks.sum(&:bytesize).to_s] unless has_length
          buffer = head_frame(status, pairs, chunks.any? { |chunk| !chunk.empty? })
          last = chunks.rindex { |chunk| !chunk.empty? }
          chunks.each_with_index { |chunk, i| append_data(buffer, chunk, i == last) unless chunk.empty? }
          close_body(body)
          send_bytes(buffer)
        else
          stream(status, pairs, body)
          close_body(body)
          if @pending_head
            send_bytes(Wire::Frame.encode(HEAD_TYPE, @pending_head, END_STREAM))
          else
            send_bytes(Wire::Frame.encode(BODY_TYPE, Wire::Frame::EMPTY, END_STREAM))
          end
        end
      rescue LinkBroken
        raise
      rescue *APP_ERRORS => e
        close_body(body)
        fail_response(env, e)
      ensure
        close_body(body)
      end
      nil
    end

    # Sends the 500 a request gets when its app raised before returning, or when its body could not be
    # stored; logs +error+ first. The head carries +app_called_ns+ (T4: when app.call was entered, or the
    # same reading as T5 when it never was), +app_returned_ns+ (T5: when the worker gave up on the app)
    # and +body_read_ns+. Raises LinkBroken when the link fails.
    def write_error(env, error, app_called_ns, app_returned_ns, body_read_ns)
      @app_called_ns = app_called_ns
      @app_returned_ns = app_returned_ns
      @body_read_ns = body_read_ns
      Log.exception("#{@context}: #{request_line(env)}: app raised", error, @log)
      send_bytes(error_frames)
    end

    private

    def fail_response(env, error)
      if @head_sent
        Log.exception("#{@context}: #{request_line(env)}: response body raised after the head was sent",
                      error, @log)
        send_bytes(Wire::ResponseAbort.new(reason: "#{error.class}: #{error.message}"[0, 4096]).encode)
      else
        Log.exception("#{@context}: #{request_line(env)}: invalid response or body raised", error, @log)
        send_bytes(error_frames)
      end
    end

    # Streams a body that is not an Array: the head waits for the first chunk (one write for both),
    # then every chunk is written as it comes.
    def stream(status, pairs, body)
      @pending_head = head_payload(status, pairs)
      if @pending_head.bytesize > MAX_PAYLOAD
        raise Wire::ProtocolError, "response head of #{@pending_head.bytesize} bytes exceeds #{MAX_PAYLOAD}"
      end

      body.each do |chunk|
        next if chunk.empty?

        buffer = String.new(encoding: BINARY)
        if @pending_head
          Wire::Frame.append(buffer, HEAD_TYPE, @pending_head)
          @pending_head = nil
        end
        append_data(buffer, chunk, false)
        send_bytes(buffer)
      end
    end

    # A binary buffer holding the RESPONSE_HEAD frame (END_STREAM unless +more+).
    def head_frame(status, pairs, more)
      buffer = String.new(encoding: BINARY)
      Wire::Frame.append(buffer, HEAD_TYPE, head_payload(status, pairs), more ? 0 : END_STREAM)
    end

    # The RESPONSE_HEAD payload for this response: +status+, the timing points given to #write or
    # #write_error, and +pairs+.
    def head_payload(status, pairs)
      Wire::ResponseHead.payload(status, @app_called_ns, @app_returned_ns, @body_read_ns, pairs)
    end

    # The worker's own 500: RESPONSE_HEAD and a plain-text RESPONSE_BODY with END_STREAM, in one buffer.
    def error_frames
      buffer = Wire::Frame.encode(HEAD_TYPE, head_payload(500, ERROR_HEADERS))
      Wire::Frame.append(buffer, BODY_TYPE, ERROR_BODY, END_STREAM)
    end

    # Appends +chunk+ as RESPONSE_BODY frames of at most MAX_PAYLOAD bytes; the final one carries
    # END_STREAM when +last+.
    def append_data(buffer, chunk, last)
      size = chunk.bytesize
      offset = 0
      while size - offset > MAX_PAYLOAD
        Wire::Frame.append(buffer, BODY_TYPE, chunk.byteslice(offset, MAX_PAYLOAD))
        offset += MAX_PAYLOAD
      end
      Wire::Frame.append(buffer, BODY_TYPE, offset.zero? ? chunk : chunk.byteslice(offset..), last ? END_STREAM : 0)
    end

    # [pairs, whether content-length was given]. Rack 2: "\n" separates values; Rack 3: Array values.
    def header_pairs(headers)
      pairs = []
      has_length = false
      headers.each do |name, value|
        name = name.to_s
        next if name.start_with?("rack.")

        has_length ||= name.casecmp?(CONTENT_LENGTH)
        case value
        when Array then value.each { |v| pairs << [name, v.to_s] }
        when String
          if value.include?("\n")
            value.split("\n").each { |v| pairs << [name, v] }
          else
            pairs << [name, value]
          end
        else pairs << [name, value.to_s]
        end
      end
      [pairs, has_length]
    end

    # Calls body.close if it has one, at most once per response. Errors from close are logged, not
    # raised: the response itself is complete.
    def close_body(body)
      return if @body_closed

      @body_closed = true
      body.close if body.respond_to?(:close)
    rescue *APP_ERRORS => e
      Log.exception("#{@context}: body.close raised", e, @log)
    end

    def send_bytes(bytes)
      @io.write(bytes)
      @head_sent = true
    rescue IOError, SystemCallError => e
      raise LinkBroken, "#{e.class}: #{e.message}"
    end

    def request_line(env)
      "#{env['REQUEST_METHOD']} #{env['PATH_INFO']}"
    end
  end
end
