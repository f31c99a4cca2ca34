# frozen_string_literal: true

# One worker thread's connection to the host, i.e. one slot: it dials in to link.sock, says HELLO, and
# then serves the requests the host dispatches to it one at a time (REQUEST → app → RESPONSE_*). An
# idle link is a free slot in the host's queue, so this class is where "dispatch" meets "app".
#
# Lifecycle: #run connects (unless given a socket), handshakes, loops until the host closes the link or
# sends GOAWAY, and returns whether the link ended for good; it never raises. A protocol error is logged,
# answered with GOAWAY(1) and ends this link only (the worker then dials in again, see Worker). #stop (on
# SIGTERM, from another thread) sends GOAWAY(0) when the link is idle, or as soon as the current response
# is finished; #close_if_idle ends a link that is still idle after that. A link runs in a thread or, on a
# fiber slot, in a fiber under the worker's fiber scheduler (Worker::FiberReactor): the same code, whose
# socket reads and writes then wait through the scheduler.
#
# Timing (docs/PROTOCOL.md, "Timing fields"): per request this thread reads CLOCK_MONOTONIC twice, T4 when
# the request's turn with the app begins and T5 when app.call returned, and reports both in RESPONSE_HEAD.
# A request with BODY frames adds one reading after the last of them: the body is read into rack.input on
# the app's behalf between T4 and the call, and reported as body-read ns so the host can take it out of
# service time (service = T5 - T4 - body read). Where the worker measures GVL wait (Worker::GvlClock: Ruby
# 3.2+) and the host speaks version 6, it reads the thread's GVL wait before it waits for each frame and at
# T5, and the difference (the wait to read the REQUEST once it arrived, and the waits in app.call) goes in
# the head (flag GVL_WAIT); elsewhere the head carries none and the host counts the wait as unknown.
#
# Per request the link adds what the prototype cannot hold (docs/RACK.md): rack.errors and rack.logger
# (this link's ErrorStream, tagged with the request id), rack.early_hints, rack.response_finished, and on
# HTTP/1.x rack.hijack? / rack.hijack, and puma_plus.websocket (WebSocket, whose WS_COMMAND frames go on
# this link while the request runs). A hijack dials a second connection, to hijack.sock beside link.sock
# (HELLO role 2, naming the request), whose bytes the host splices to the client's connection
# (docs/PROTOCOL.md, "Hijack").

require "socket"
require_relative "../wire"
require_relative "../log"
require_relative "../rack_env"
require_relative "../request_body"
require_relative "../response_writer"
require_relative "../error_stream"
require_relative "../web_socket"
require_relative "gvl_clock"

module PumaPlus
  class Worker
    class Link
      Wire = PumaPlus::Wire
      APP_ERRORS = ResponseWriter::APP_ERRORS
      CLOCK = Process::CLOCK_MONOTONIC
      REQUEST_ID = "puma_plus.request_id"
      WEBSOCKET = "puma_plus.websocket"
      HTTP1 = "HTTP/1"
      # The socket a hijack connection dials, in link.sock's directory (docs/PROTOCOL.md, "Transport").
      HIJACK_SOCKET = "hijack.sock"

      # +path+: link.sock; +io+: an already-connected socket (tests); +app+: the Rack app;
      # +prototype+: the frozen env (RackEnv.prototype); indexes and +generation+ go into HELLO.
      # +lowlevel_error_handler+: puma's, called as call(error[, env[, 500]]) when the app raises; its
      # [status, headers, body] is the response (the worker's plain 500 when nil or when it raises too).
      # +on_served+: called with no argument in the link's thread after each request it served, or nil.
      def initialize(app:, prototype:, worker_index:, thread_index:, path: nil, io: nil, generation: 1,
                     log: $stderr, lowlevel_error_handler: nil, on_served: nil)
        @on_served = on_served
        @app = app
        @lowlevel_error_handler = lowlevel_error_handler
        @prototype = prototype
        @worker_index = worker_index
        @thread_index = thread_index
        @path = path
        @io = io
        @generation = generation
        @log = log
        @context = "worker #{worker_index} thread #{thread_index}"
        @lock = Mutex.new
        @busy = false
        @stopping = false
        @goaway_sent = false
        @close_when_idle = false
        @link_id = nil
        @errors = ErrorStream.new(log)
        @early_hints = ->(headers) { @writer.write_early_hints(headers) }
        @hijack = -> { hijack_full }
      end

      # The id the host gave this link in WELCOME (nil before).
      attr_reader :link_id

      # Connects, handshakes and serves until the link ends. Never raises. Returns true when the link
      # ended for good (this side is stopping, the host said GOAWAY(0) or refused the link, or the host
      # cannot be reached), false when it broke and a new link should take its slot.
      def run
        begin
          @io ||= UNIXSocket.new(@path)
        rescue SystemCallError => e
          Log.line("#{@context}: cannot reach the host at #{@path}: #{e.message}", @log)
          return true
        end
        @io.sync = true
        @reader = Wire::FrameReader.new(@io)
        @writer = ResponseWriter.new(@io, context: @context, log: @log,
                                               hijacker: @path && -> { dial_hijack })
        return true unless handshake

        serve_requests || @stopping
      rescue Wire::ProtocolError => e
        Log.line("#{@context}: protocol error: #{e.message}; closing this link", @log)
        send_goaway(Wire::GoAway::PROTOCOL_ERROR, e.message)
        @stopping
      rescue ResponseWriter::LinkBroken, IOError, SystemCallError => e
        unless @stopping
          Log.line("#{@context}: link #{@path ? "to #{@path} " : ''}failed: #{e.class}: #{e.message}", @log)
        end
        @stopping
      rescue Exception => e # rubocop:disable Lint/RescueException -- a slot must never vanish silently
        Log.exception("#{@context}: link thread failed", e, @log)
        @stopping
      ensure
        close
      end

      # Asks the host to send nothing more (GOAWAY 0). Safe from any thread; if a request is in
      # progress the GOAWAY follows its response. Requests already dispatched are still served.
      def stop
        @lock.synchronize do
          @stopping = true
          send_goaway_locked if @link_id && !@busy # before WELCOME the peer may send nothing else
        end
      end

      # Ends the link now if it is idle, else right after the current response. Safe from any thread. An idle
      # link's socket is shut down, not closed: its reader (a thread, or a fiber waiting in the fiber
      # scheduler's selector, where a close from another thread would break the selector) reads EOF, ends
      # and closes it.
      def close_if_idle
        @lock.synchronize do
          if @busy
            @close_when_idle = true
          else
            shut_down
          end
        end
      end

      private

      def handshake
        @io.write(hello(Wire::Hello::ROLE_WORKER).encode)
        welcome, refusal = answer_to_hello(@reader.read)
        unless welcome
          Log.line("#{@context}: the host refused the link: #{refusal}", @log)
          return false
        end
        # GVL wait goes in the head only to a host that reads it (version 6) and only when it is measured.
        @gvl = welcome.version >= 6 && GvlClock.measuring?
        @websocket = WebSocket.new(@io, welcome.version)
        @lock.synchronize do
          @link_id = welcome.link_id
          send_goaway_locked if @stopping
        end
        true
      end

      def hello(role, request_id = 0)
        Wire::Hello.new(version: Wire::VERSION, role: role, pid: Process.pid, generation: @generation,
                        worker_index: @worker_index, thread_index: @thread_index, request_id: request_id)
      end

      # The host's answer to a HELLO (docs/PROTOCOL.md, "State machine" 1): [Welcome, nil], or [nil, why]
      # when it refused (GOAWAY) or closed the connection. Raises ProtocolError for any other frame, a
      # malformed one, or a WELCOME naming a version this codec does not speak.
      def answer_to_hello(frame)
        case frame&.type
        when Wire::FrameType::WELCOME
          welcome = Wire.decode(frame)
          return [welcome, nil] if welcome.version.between?(Wire::MIN_VERSION, Wire::VERSION)

          raise Wire::ProtocolError,
                "WELCOME: version #{welcome.version}, #{Wire::MIN_VERSION} to #{Wire::VERSION} required"
        when Wire::FrameType::GOAWAY
          goaway = Wire.decode(frame)
          [nil, "GOAWAY(#{goaway.code}) #{goaway.reason_text}"]
        when nil
          [nil, "it closed the connection before WELCOME"]
        else
          raise Wire::ProtocolError, "#{frame.type_name}: unexpected before WELCOME"
        end
      end

      # Serves until the link ends: true after GOAWAY(0) or a close this side asked for, false when the
      # host closed the link without a GOAWAY(0).
      def serve_requests
        # Read before the wait for each frame: an idle thread blocked in the read waits for no GVL, but once
        # the REQUEST arrives it may wait for the GVL to read it (another thread runs Ruby code), and that
        # wait is the request's as much as one inside app.call.
        while (gvl_before = (GvlClock.wait_ns if @gvl); frame = @reader.read)
          case frame.type
          when Wire::FrameType::REQUEST
            @lock.synchronize { @busy = true }
            begin
              serve(frame, gvl_before)
            ensure
              @lock.synchronize do
                @busy = false
                send_goaway_locked if @stopping
              end
            end
            @on_served&.call
            return true if @close_when_idle
          when Wire::FrameType::GOAWAY
            goaway = Wire.decode(frame)
            return true if goaway.code == Wire::GoAway::NORMAL

            Log.line("#{@context}: the host closed the link: GOAWAY(#{goaway.code}) #{goaway.reason_text}", @log)
            return false
          else
            raise Wire::ProtocolError, "unexpected #{frame.type_name} on an idle worker link"
          end
        end
        false
      end

      # One request: env from the REQUEST payload, rack.input from the BODY frames, app.call, response.
      # Times (CLOCK_MONOTONIC ns): T4 when the request's turn begins (before its BODY frames are read,
      # or just before app.call without a body), T5 when app.call returned or raised; body read = from T4
      # to after the last BODY frame. A body that could not be stored gets the worker's 500 with T5 = the
      # reading after the body.
      def serve(frame, gvl_before = nil)
        input = nil
        env = RackEnv.build(@prototype, frame.payload, nil)
        add_request_entries(env)
        app_called = Process.clock_gettime(CLOCK, :nanosecond)
        if frame.end_stream?
          input = RequestBody.empty
          body_read_ns = 0
        else
          input, failure = read_body
          body_read_ns = Process.clock_gettime(CLOCK, :nanosecond) - app_called
          # The request waited for its body until the worker had all of it (docs/METRICS.md).
          env[RackEnv::BODY_WAIT_NS] += body_read_ns
        end
        env["rack.input"] = input
        @writer.gvl_since(gvl_before)
        if failure
          return @writer.write_error(env, failure, app_called, app_called + body_read_ns, body_read_ns)
        end

        error = nil
        begin
          status, headers, body = @app.call(env)
        rescue *APP_ERRORS => e
          error = e
          if @hijacked_io
            # The client's connection is the app's: nothing can be answered on it, only logged and counted.
            Log.exception("#{@context}: #{env['REQUEST_METHOD']} #{env['PATH_INFO']}: app raised after a full hijack",
                          e, @log)
            return @writer.write_hijacked(500, nil, app_called, Process.clock_gettime(CLOCK, :nanosecond), body_read_ns)
          end
          status, headers, body = lowlevel_error_response(e, env)
          unless status
            return @writer.write_error(env, e, app_called, Process.clock_gettime(CLOCK, :nanosecond), body_read_ns)
          end
        end
        app_returned = Process.clock_gettime(CLOCK, :nanosecond)
        if @hijacked_io
          # Full hijack: the app owns the connection; whatever it returned is ignored (Rack 2 and 3).
          @writer.write_hijacked(status, body, app_called, app_returned, body_read_ns)
        else
          @writer.write(env, status, headers, body, app_called, app_returned, body_read_ns)
        end
      ensure
        @websocket.finish
        input&.close
        @hijacked_io = nil
        @env = nil
        response_finished(env, status, headers, error) if env
        @errors.request_id = nil
      end

      # The per-request env entries that cannot live in the frozen prototype. rack.hijack is offered on
      # HTTP/1.x only: h2 and h3 streams are not a byte stream an app could take over (docs/RACK.md).
      def add_request_entries(env)
        @env = env
        @request_id = env[REQUEST_ID]
        @errors.request_id = @request_id
        @writer.reset
        env["rack.errors"] = @errors
        env["rack.logger"] = @errors.logger
        env["rack.early_hints"] = @early_hints
        env["rack.response_finished"] = []
        @websocket.start(env)
        env[WEBSOCKET] = @websocket
        return unless @path && env["SERVER_PROTOCOL"]&.start_with?(HTTP1)

        env["rack.hijack?"] = true
        env["rack.hijack"] = @hijack
      end

      # Runs the rack.response_finished callables (env, status, headers, error) once the response left
      # the worker; an exception from one is logged and does not stop the others.
      def response_finished(env, status, headers, error)
        callbacks = env["rack.response_finished"]
        return unless callbacks.is_a?(Array)

        callbacks.reverse_each do |callback|
          callback.call(env, status, headers, error)
        rescue *APP_ERRORS => e
          Log.exception("#{@context}: rack.response_finished callback raised", e, @log)
        end
      end

      # env["rack.hijack"]: tells the host (HIJACK), dials the raw connection and returns it, also as
      # env["rack.hijack_io"] (Rack 2). A second call returns the same IO.
      def hijack_full
        return @hijacked_io if @hijacked_io

        @io.write(Wire::Hijack.new.encode)
        @hijacked_io = dial_hijack
        @env["rack.hijack_io"] = @hijacked_io if @env
        @hijacked_io
      end

      # A new connection to hijack.sock with HELLO role 2 naming the current request; once the host answered
      # WELCOME its bytes are the client's. The answer is read through an UnbufferedReader so no client byte
      # is left in a Ruby read buffer, where code working on the file descriptor itself (an event loop, a
      # C extension) would never see it. Raises IOError when the host refuses, and
      # ProtocolError when it answers anything but WELCOME or GOAWAY; the app gets either from rack.hijack.
      def dial_hijack
        socket = UNIXSocket.new(File.join(File.dirname(@path), HIJACK_SOCKET))
        socket.sync = true
        socket.binmode
        socket.write(hello(Wire::Hello::ROLE_HIJACK, Integer(@request_id, 10)).encode)
        welcome, refusal = answer_to_hello(Wire::Frame.read(Wire::UnbufferedReader.new(socket)))
        raise IOError, "the host refused the hijack: #{refusal}" unless welcome

        socket
      rescue StandardError
        socket&.close unless socket&.closed?
        raise
      end

      # The lowlevel_error_handler's response to +error+ (logged here), or nil without a handler or when
      # the handler raised too (then the worker's own 500 follows).
      def lowlevel_error_response(error, env)
        return nil unless @lowlevel_error_handler

        Log.exception("#{@context}: app raised; answering with lowlevel_error_handler", error, @log)
        args = [error, env, 500]
        arity = @lowlevel_error_handler.respond_to?(:arity) ? @lowlevel_error_handler.arity : 3
        response = @lowlevel_error_handler.call(*args.first(arity.negative? ? 3 : arity))
        response.is_a?(Array) && response.size == 3 ? response : nil
      rescue *APP_ERRORS => e
        Log.exception("#{@context}: lowlevel_error_handler raised", e, @log)
        nil
      end

      # Reads BODY frames up to END_STREAM. Returns [rack.input, nil], or [nil-safe input, error] when the
      # body could not be stored (e.g. the spool file hit ENOSPC): the remaining frames are still read and
      # discarded so the link stays in step, and the request gets a 500.
      def read_body
        body = RequestBody.new
        failure = nil
        loop do
          frame = @reader.read
          raise Wire::ProtocolError, "the link ended inside a request body" if frame.nil?
          unless frame.type == Wire::FrameType::BODY
            raise Wire::ProtocolError, "expected BODY, got #{frame.type_name} inside a request body"
          end

          if failure.nil?
            begin
              body << frame.payload
            rescue IOError, SystemCallError => e
              failure = e
            end
          end
          break if frame.end_stream?
        end
        [failure ? RequestBody.empty : body.input, failure]
      end

      def send_goaway_locked
        return if @goaway_sent

        @goaway_sent = true
        send_goaway(Wire::GoAway::NORMAL, "worker stopping")
      end

      def send_goaway(code, reason)
        @io&.write(Wire::GoAway.new(code: code, reason: reason.b[0, 1024]).encode)
      rescue IOError, SystemCallError
        nil
      end

      def close
        @io&.close unless @io&.closed?
      rescue IOError, SystemCallError
        nil
      end

      def shut_down
        @io&.shutdown unless @io&.closed?
      rescue IOError, SystemCallError
        nil
      end
    end
  end
end
