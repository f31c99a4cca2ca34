# frozen_string_literal: true

# Turns what a Rack app returned into RESPONSE_HEAD / RESPONSE_BODY / RESPONSE_ABORT frames on one worker
# link: the last step of the request path inside the worker. Rack 2 and Rack 3 responses both work.
#
# - Headers: a Rack 2 value holding "\n" and a Rack 3 Array value become repeated pairs; `rack.*`
#   headers are middleware-only and never sent. When the app gave no content-length and the body
#   responds to to_ary, the length is computed and added.
# - Bodies: a file body (to_path, status 200) goes out as one RESPONSE_FILE frame naming the file, which
#   the host sends itself. An Array body (to_ary) goes out with the head in one write. Any other body is streamed: each
#   chunk the app yields is written as soon as it is yielded (split at 1 MiB), never buffered; the head
#   goes out with the first chunk.
# - Streaming bodies (Rack 3): a body without `each` that responds to `call` is called with a stream
#   whose writes become RESPONSE_BODY frames at once; the response ends when `call` returns.
# - Partial hijack: a `rack.hijack` response header (when env["rack.hijack?"]) sends the head as
#   HIJACK_HEAD, ignores the body (it is closed) and calls the header's callable, in a thread of its own,
#   with the IO the +hijacker+ dials; the link's slot is free once that thread started.
# - Early hints: #write_early_hints sends an EARLY_HINTS frame before the head.
# - HEAD requests and 1xx/204/304 responses: the head carries END_STREAM and the body is not iterated.
# - body.close is called exactly once, before END_STREAM is written, so the slot does not look free to
#   the host while close callbacks (e.g. Rails' executor) still run.
# - A body that raises before anything was written gets a 500; after the head was written, RESPONSE_ABORT.
# - Every RESPONSE_HEAD, the worker's own 500s included, carries the request's T4, T5 and body-read ns
#   (docs/PROTOCOL.md, "Timing fields"), measured by Worker::Link and passed in here, and, when the link
#   measures it (#gvl_since), the GVL wait between T4 and T5, read when the head is built (flag GVL_WAIT).
#
# Threading: one instance per link, used by that link's thread only.

require "io/wait"
require "rack"
require_relative "wire"
require_relative "log"
require_relative "worker/gvl_clock"

module PumaPlus
  class ResponseWriter
    # Raised (wrapping the IO error) when writing to the link fails; the link is finished.
    class LinkBroken < StandardError; end

    BINARY = Encoding::BINARY
    MAX_PAYLOAD = Wire::Frame::MAX_PAYLOAD
    END_STREAM = Wire::Frame::END_STREAM
    HEAD_TYPE = Wire::FrameType::RESPONSE_HEAD
    GVL_WAIT = Wire::ResponseHead::GVL_WAIT
    HIJACK_HEAD_TYPE = Wire::FrameType::HIJACK_HEAD
    FILE_TYPE = Wire::FrameType::RESPONSE_FILE
    ASCII_PATH = /\A[\x20-\x7e]+\z/
    RACK_HIJACK = "rack.hijack"
    BODY_TYPE = Wire::FrameType::RESPONSE_BODY
    CONTENT_LENGTH = "content-length"
    # Errors an app can raise that we answer with 500 / RESPONSE_ABORT; anything else (signals, exit,
    # out of memory) is not ours to swallow.
    APP_ERRORS = [StandardError, ScriptError, SystemStackError].freeze
    ERROR_BODY = "Internal Server Error"
    # Deeply frozen (every constant here is), so a link running in a Ractor can read it.
    ERROR_HEADERS = Ractor.make_shareable([["content-type", "text/plain"], [CONTENT_LENGTH, ERROR_BODY.bytesize.to_s]])

    # +io+: the link's socket (sync). +context+: a label for log lines, e.g. "worker 0 thread 3".
    # +hijacker+: a callable returning a new IO connected to the client (docs/PROTOCOL.md, "Hijack"), or
    # nil when this link cannot hijack.
    def initialize(io, context: "worker", log: $stderr, hijacker: nil)
      @io = io
      @context = context
      @log = log
      @hijacker = hijacker
    end

    # Sends +headers+ (a Rack headers Hash) as an EARLY_HINTS frame, for env["rack.early_hints"]: the
    # protocol answers the client with 103 Early Hints where it can. Must be called before the response
    # head is written (from the app, inside app.call); later calls are ignored. Raises LinkBroken.
    def write_early_hints(headers)
      return if @head_sent

      pairs, = header_pairs(headers)
      @io.write(Wire::EarlyHints.new(pairs: pairs).encode)
    rescue IOError, SystemCallError => e
      raise LinkBroken, "#{e.class}: #{e.message}"
    end

    # Ends the response of a fully hijacked request: a RESPONSE_HEAD with END_STREAM whose +status+ (the
    # app's, or 200 when it returned none) and timing are for the host's log and metrics only; the client
    # hears nothing of it. body.close is called once when the app returned a body.
    def write_hijacked(status, body, app_called_ns, app_returned_ns, body_read_ns)
      take_timing(app_called_ns, app_returned_ns, body_read_ns)
      @body_closed = false
      close_body(body) if body
      status = 200 unless status.is_a?(Integer) && status.between?(100, 999)
      send_bytes(Wire::Frame.encode(HEAD_TYPE, head_payload(status, []), END_STREAM | @head_flags))
    end

    # Sets the GVL clock reading (Worker::GvlClock.wait_ns, ns) taken at the current request's T4, or nil when
    # the link does not measure GVL wait: the head then carries the thread's wait since that reading.
    def gvl_since(reading)
      @gvl_since = reading
    end

    # Whether env["rack.early_hints"] may still send (no head was written for the current response).
    def head_sent?
      @head_sent
    end

    # Marks the start of a new request's response (before app.call), so early hints can be sent.
    def reset
      @head_sent = false
    end

    # Writes the app's response (+status+, +headers+, +body+ as returned by app.call) for +env+. The
    # head carries +app_called_ns+ (T4) and +app_returned_ns+ (T5), CLOCK_MONOTONIC readings, and
    # +body_read_ns+, the ns spent reading the request's BODY frames. Never raises for a misbehaving app:
    # it logs and sends a 500 or RESPONSE_ABORT. Raises LinkBroken when the link itself fails.
    # body.close is called exactly once in every case.
    def write(env, status, headers, body, app_called_ns, app_returned_ns, body_read_ns)
      @stream_input = env["rack.input"]
      take_timing(app_called_ns, app_returned_ns, body_read_ns)
      @head_sent = false
      @body_closed = false
      @pending_head = nil
      begin
        status = Integer(status)
        raise ArgumentError, "status #{status} is outside 100..999" unless status.between?(100, 999)

        pairs, has_length = header_pairs(headers)
        if env["rack.hijack?"] && @hijacker && (hijack = headers[RACK_HIJACK])
          close_body(body)
          partial_hijack(env, status, pairs, hijack)
        elsif env["REQUEST_METHOD"] == "HEAD" || no_body_status?(status)
          close_body(body)
          send_bytes(Wire::Frame.encode(HEAD_TYPE, head_payload(status, pairs), END_STREAM | @head_flags))
        elsif (file = sendable_file(status, headers, body))
          path, size = file
          pairs << [CONTENT_LENGTH, size.to_s] unless has_length
          buffer = head_frame(status, pairs, size.positive?)
          if size.positive?
            Wire::Frame.append(buffer, FILE_TYPE, Wire::ResponseFile.new(offset: 0, length: size, path: path).payload,
                               END_STREAM)
          end
          close_body(body)
          send_bytes(buffer)
        elsif body.respond_to?(:to_ary) && (chunks = body.to_ary)
          # Rails 6.1's response body answers to_ary with nil: such a body is streamed below.
          pairs << [CONTENT_LENGTH, chunks.sum(&:bytesize).to_s] unless has_length
          last = chunks.rindex { |chunk| !chunk.empty? }
          buffer = head_frame(status, pairs, last)
          chunks.each_index { |i| append_data(buffer, chunks[i], i == last) unless chunks[i].empty? }
          close_body(body)
          send_bytes(buffer)
        else
          stream(status, pairs, body)
          close_body(body)
          if @pending_head
            send_bytes(Wire::Frame.encode(HEAD_TYPE, @pending_head, END_STREAM | @head_flags))
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
      take_timing(app_called_ns, app_returned_ns, body_read_ns)
      Log.exception("#{@context}: #{request_line(env)}: app raised", error, @log)
      send_bytes(error_frames)
    end

    private

    # Statuses that carry no body (1xx, 204, 304).
    def no_body_status?(status)
      status < 200 || status == 204 || status == 304
    end

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
    # then every chunk is written as it comes. A body without each but with call (a Rack 3 streaming
    # body) is called with a Stream; the response ends when call returns.
    def stream(status, pairs, body)
      @pending_head = head_payload(status, pairs)
      if @pending_head.bytesize > MAX_PAYLOAD
        raise Wire::ProtocolError, "response head of #{@pending_head.bytesize} bytes exceeds #{MAX_PAYLOAD}"
      end

      if !body.respond_to?(:each) && body.respond_to?(:call)
        stream = Stream.new(self, @stream_input)
        begin
          body.call(stream)
        ensure
          stream.finish
        end
      else
        body.each { |chunk| emit_chunk(chunk) }
      end
    end

    # [path, size] when +body+ can go out as a RESPONSE_FILE: it answers to_path with an absolute, printable
    # ASCII path (the host opens it by name) of a regular file this process can read, the status is 200 and
    # a content-length the app gave matches the file's size. Anything else (a 206 from Rack::Files, whose
    # each yields only the range; a path that is gone) is nil, and the body is iterated instead.
    def sendable_file(status, headers, body)
      return nil unless status == 200 && body.respond_to?(:to_path)

      path = body.to_path
      return nil unless path.is_a?(String) && path.start_with?("/") && ASCII_PATH.match?(path)

      stat = File.stat(path)
      return nil unless stat.file? && stat.readable?

      length = headers[CONTENT_LENGTH] || headers["Content-Length"]
      return nil if length && length.to_s != stat.size.to_s

      [path, stat.size]
    rescue SystemCallError
      nil
    end

    # Writes one body chunk (any String) as RESPONSE_BODY frames, the pending head in front of the first.
    def emit_chunk(chunk)
      chunk = chunk.to_s
      return if chunk.empty?

      buffer = String.new(encoding: BINARY)
      if @pending_head
        Wire::Frame.append(buffer, HEAD_TYPE, @pending_head, @head_flags)
        @pending_head = nil
      end
      append_data(buffer, chunk, false)
      send_bytes(buffer)
    end

    # Partial hijack: HIJACK_HEAD ends this response on the link, then the raw connection is dialled and
    # handed to +callable+ in a thread of its own (Rack's partial hijack runs after the head is out;
    # running it here would hold the slot for as long as the app streams). An IO the hijacker could not
    # open is logged; the callable is not called then.
    def partial_hijack(env, status, pairs, callable)
      frame = Wire::Frame.encode(HIJACK_HEAD_TYPE, Wire::HijackHead.payload(status, @app_called_ns, @app_returned_ns,
                                                                           @body_read_ns, pairs, @gvl_wait_ns),
                                 @head_flags)
      send_bytes(frame)
      begin
        io = @hijacker.call
      rescue IOError, SystemCallError => e
        Log.line("#{@context}: #{request_line(env)}: partial hijack failed: #{e.class}: #{e.message}", @log)
        return
      end
      context = @context
      log = @log
      line = request_line(env)
      Thread.new do
        callable.call(io)
      rescue Exception => e # rubocop:disable Lint/RescueException -- the app's thread: report, never kill the worker
        Log.exception("#{context}: #{line}: partial hijack callable raised", e, log)
        io.close unless io.closed?
      end
    end

    # A binary buffer holding the RESPONSE_HEAD frame (END_STREAM unless +more+), encoded in place.
    def head_frame(status, pairs, more)
      Wire::ResponseHead.append_frame(String.new(encoding: BINARY), more ? 0 : END_STREAM, status, @app_called_ns,
                                      @app_returned_ns, @body_read_ns, pairs, @gvl_wait_ns)
    end

    # The RESPONSE_HEAD payload for this response: +status+, the timing points given to #write or
    # #write_error, +pairs+, and the GVL wait when measured (the frame then needs @head_flags).
    def head_payload(status, pairs)
      Wire::ResponseHead.payload(status, @app_called_ns, @app_returned_ns, @body_read_ns, pairs, @gvl_wait_ns)
    end

    # Takes the current response's timing: T4, T5 and body read as given, and the GVL wait since the
    # #gvl_since reading (nil when not measured), which decides the head's flags.
    def take_timing(app_called_ns, app_returned_ns, body_read_ns)
      @app_called_ns = app_called_ns
      @app_returned_ns = app_returned_ns
      @body_read_ns = body_read_ns
      @gvl_wait_ns = @gvl_since && Worker::GvlClock.wait_ns - @gvl_since
      @head_flags = @gvl_wait_ns ? GVL_WAIT : 0
    end

    # The worker's own 500: RESPONSE_HEAD and a plain-text RESPONSE_BODY with END_STREAM, in one buffer.
    def error_frames
      buffer = Wire::Frame.encode(HEAD_TYPE, head_payload(500, ERROR_HEADERS), @head_flags)
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

        # casecmp, not casecmp?: ASCII folding is what header names need, and it allocates nothing
        has_length ||= name.casecmp(CONTENT_LENGTH) == 0
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

    # Writes +bytes+ whole. A link socket's send buffer nearly always has room, and write_nonblock sends
    # with MSG_DONTWAIT while this thread keeps the GVL (IO#write gives it up and takes it back around
    # every write, a hand-off to another slot's thread each time); only when the buffer is full does
    # this thread wait for it to drain.
    def send_bytes(bytes)
      while (written = @io.write_nonblock(bytes, exception: false)) != bytes.bytesize
        if written == :wait_writable
          @io.wait_writable
        else
          bytes = bytes.byteslice(written..)
        end
      end
      @head_sent = true
    rescue IOError, SystemCallError => e
      raise LinkBroken, "#{e.class}: #{e.message}"
    end

    def request_line(env)
      "#{env['REQUEST_METHOD']} #{env['PATH_INFO']}"
    end
  
    # The stream a Rack 3 streaming body (body.call(stream)) writes to: write / << / flush / close go to
    # the client as RESPONSE_BODY frames at once; read / read_partial read rack.input. It ends when
    # body.call returns, or earlier at close / close_write. Same thread as the writer.
    class Stream
      def initialize(writer, input)
        @writer = writer
        @input = input
        @closed = false
      end

      def write(data)
        raise IOError, "stream closed" if @closed

        @writer.send(:emit_chunk, data)
        data.to_s.bytesize
      end

      def <<(data)
        write(data)
        self
      end

      def flush
        self
      end

      def read(length = nil, buffer = nil)
        @input ? @input.read(length, buffer) : nil
      end

      def read_partial(length, buffer = nil)
        data = read(length, buffer)
        raise EOFError, "end of request body" if data.nil?

        data
      end
      alias readpartial read_partial

      def close_read
        nil
      end

      def close_write
        @closed = true
        nil
      end

      def close
        @closed = true
        nil
      end

      def closed?
        @closed
      end

      # The body's call returned: later writes raise IOError.
      def finish
        @closed = true
      end
    end
  end
end
