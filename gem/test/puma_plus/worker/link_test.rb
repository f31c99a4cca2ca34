# frozen_string_literal: true

# Drives one worker link over UNIXSocket.pair, the test playing the host with frames from the production
# codec, and a real Rack app (Rack::Lint-wrapped where the app is meant to be well-behaved).

require "test_helper"
require "socket"
require "minitest/mock"
require "delegate"
require "rack/lint"
require "uri" # Rack 2.2 Lint uses URI without requiring it
require "puma_plus/worker"

class PumaPlus::Worker::LinkTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire

  # Counts the calls that send bytes (write, write_nonblock), so tests can claim "one write".
  class CountingIO < SimpleDelegator
    attr_reader :writes

    def initialize(io)
      super
      @writes = 0
    end

    def write(*args)
      @writes += 1
      __getobj__.write(*args)
    end

    def write_nonblock(*args, **options)
      @writes += 1
      __getobj__.write_nonblock(*args, **options)
    end
  end

  # A body that records how often close is called and can raise from each.
  class TrackedBody
    attr_reader :closes

    def initialize(chunks, raise_after: nil)
      @chunks = chunks
      @raise_after = raise_after
      @closes = 0
    end

    def each
      @chunks.each_with_index do |chunk, i|
        raise "boom" if @raise_after == i

        yield chunk
      end
      raise "boom" if @raise_after == @chunks.size
    end

    def close
      @closes += 1
    end
  end

  def setup
    @log = StringIO.new
  end

  def teardown
    @host&.close
    @thread&.join(2)
  end

  def start(app, lint: true, threads: 1, workers: 1, counting: false, lowlevel_error_handler: nil)
    host_io, worker_io = UNIXSocket.pair
    worker_io = CountingIO.new(worker_io) if counting
    @worker_io = worker_io
    prototype = PumaPlus::RackEnv.prototype(multithread: threads > 1, multiprocess: workers > 1)
    @link = PumaPlus::Worker::Link.new(app: lint ? Rack::Lint.new(app) : app, prototype: prototype,
                                       worker_index: 2, thread_index: 3, io: worker_io, log: @log,
                                       lowlevel_error_handler: lowlevel_error_handler)
    @thread = Thread.new { @link.run }
    @host = PumaPlus::HostEnd.new(host_io)
    @hello = @host.accept
  end

  # Runs a link (worker 2, thread 3) on its own thread, on +io+ or dialing +path+; no handshake yet.
  def run_link(app, io: nil, path: nil)
    @link = PumaPlus::Worker::Link.new(app: app, prototype: PumaPlus::RackEnv.prototype(multithread: false, multiprocess: false),
                                       worker_index: 2, thread_index: 3, io: io, path: path, log: @log)
    @thread = Thread.new { @link.run }
  end

  # Starts a link that dials +server+ itself (so rack.hijack can dial again), handshakes it, sends one
  # HTTP/1.1 request with puma_plus.request_id 42 to +app+ and returns the hijack connection it dials.
  # Runs +app+ on a link dialing +server+ (link.sock), serves it one request, and returns the app's hijack
  # connection, accepted on +hijacks+ (hijack.sock beside it).
  def start_dialing(app, server, hijacks)
    run_link(app, path: server.path)
    @host = PumaPlus::HostEnd.new(server.accept)
    @host.accept
    @host.request({ "puma_plus.request_id" => "42" })
    hijacks.accept
  end

  def ok_app(body = "ok")
    ->(_env) { [200, { "Content-Type" => "text/plain" }, [body]] }
  end

  def now_ns
    Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
  end

  # A RequestBody whose every append fails as a full disk would.
  class UnstorableBody
    def <<(_data)
      raise Errno::ENOSPC, "spool file"
    end

    def input
      raise "unreachable: a failed body is never handed to the app"
    end
  end

  def test_hello_names_role_pid_worker_and_thread_index
    start(ok_app)
    assert_equal [Wire::VERSION, 0, Process.pid, 1, 2, 3],
                 [@hello.version, @hello.role, @hello.pid, @hello.generation, @hello.worker_index, @hello.thread_index]
  end

  def test_the_head_carries_the_threads_gvl_wait_where_ruby_measures_it_and_none_where_it_cannot
    PumaPlus::Worker::GvlClock.start
    start(->(_env) { Thread.new { spin(0.02) }.tap { sleep 0.005 }.join; [200, {}, []] })
    @host.request({})
    response = @host.response
    if PumaPlus::Worker::GvlClock.measuring?
      assert_equal Wire::ResponseHead::GVL_WAIT, response.frames.first.flags & Wire::ResponseHead::GVL_WAIT
      # the app's thread woke from its sleep while the spinning one held the GVL
      assert_operator response.head.gvl_wait_ns, :>, 1_000_000
      assert_operator response.head.gvl_wait_ns, :<, response.head.app_returned_ns - response.head.app_called_ns
    else
      assert_equal 0, response.frames.first.flags & Wire::ResponseHead::GVL_WAIT, "Ruby #{RUBY_VERSION}: unknown"
      assert_nil response.head.gvl_wait_ns
    end
  end

  def test_a_host_that_speaks_version_5_gets_heads_without_gvl_wait
    PumaPlus::Worker::GvlClock.start
    host_io, worker_io = UNIXSocket.pair
    run_link(ok_app, io: worker_io)
    @host = PumaPlus::HostEnd.new(host_io)
    @host.accept(version: 5)
    @host.request({})
    response = @host.response
    assert_equal 200, response.status
    assert_nil response.head.gvl_wait_ns
  end

  # Spins until this thread has used +seconds+ of CPU, holding the GVL.
  def spin(seconds)
    deadline = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + seconds
    nil until Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) >= deadline
  end

  def test_env_is_built_from_the_request_pairs
    seen = nil
    start(->(env) { seen = env; [200, {}, []] })
    @host.request({ "REQUEST_METHOD" => "GET", "PATH_INFO" => "/hello", "QUERY_STRING" => "a=1",
                    "HTTP_HOST" => "localhost:9292", "HTTP_X_RAW" => "\xff\x00".b, "puma_plus.request_id" => "1234" })
    assert_equal 200, @host.response.status
    assert_equal "GET", seen["REQUEST_METHOD"]
    assert_equal "/hello", seen["PATH_INFO"]
    assert_equal "a=1", seen["QUERY_STRING"]
    assert_equal "localhost:9292", seen["HTTP_HOST"]
    assert_equal "\xff\x00".b, seen["HTTP_X_RAW"]
    assert_equal "1234", seen["puma_plus.request_id"]
    assert_equal Encoding::BINARY, seen["PATH_INFO"].encoding
  end

  def test_env_starts_from_the_prototype_entries
    seen = nil
    start(->(env) { seen = env; [200, {}, []] }, threads: 4, workers: 1, lint: false)
    @host.request({})
    @host.response
    assert_equal Rack::VERSION, seen["rack.version"]
    assert_kind_of PumaPlus::ErrorStream, seen["rack.errors"], "rack.errors tags lines with the request id"
    assert_equal true, seen["rack.multithread"]
    assert_equal false, seen["rack.multiprocess"]
    assert_equal false, seen["rack.run_once"]
    assert_equal "", seen["SCRIPT_NAME"]
  end

  def test_each_request_gets_its_own_env
    envs = []
    start(->(env) { envs << env; env["app.mark"] = envs.size; [200, {}, []] })
    2.times { @host.request({}); @host.response }
    refute_same envs[0], envs[1]
    assert_equal 2, envs[1]["app.mark"]
    refute envs[0].frozen?
  end

  def test_request_without_body_gets_an_empty_binary_input
    input = nil
    start(->(env) { input = env["rack.input"].read; [200, {}, []] })
    @host.request({})
    @host.response
    assert_equal "", input
    assert_equal Encoding::BINARY, input.encoding
  end

  def test_request_body_frames_become_a_rewindable_rack_input
    reads = nil
    start(lambda do |env|
      first = env["rack.input"].read
      env["rack.input"].rewind
      reads = [first, env["rack.input"].read]
      [200, {}, []]
    end)
    @host.request({ "REQUEST_METHOD" => "POST", "CONTENT_LENGTH" => "20" }, ["first,", "second,", "third\xff".b])
    @host.response
    assert_equal ["first,second,third\xff".b] * 2, reads
  end

  def test_request_body_over_1_mib_is_spooled_to_a_file_and_rewindable
    got = nil
    start(lambda do |env|
      input = env["rack.input"]
      size = input.read.bytesize
      input.rewind
      got = [input.class, size, input.read(10)]
      [200, {}, []]
    end, lint: false)
    chunk = "x" * Wire::Frame::MAX_PAYLOAD
    @host.request({ "REQUEST_METHOD" => "POST", "CONTENT_LENGTH" => (2 * chunk.bytesize + 1).to_s }, [chunk, chunk, "y"])
    @host.response
    assert_equal [File, 2 * Wire::Frame::MAX_PAYLOAD + 1, "x" * 10], got
  end

  def test_form_post_is_parsed_by_rack
    params = nil
    start(->(env) { params = Rack::Request.new(env).POST; [200, {}, []] })
    @host.request({ "REQUEST_METHOD" => "POST", "CONTENT_TYPE" => "application/x-www-form-urlencoded",
                    "CONTENT_LENGTH" => "11" }, "name=alpha1")
    @host.response
    assert_equal({ "name" => "alpha1" }, params)
  end

  def test_rack2_multiline_header_becomes_two_pairs
    start(->(_env) { [200, { "Set-Cookie" => "a=1; Path=/\nb=2; HttpOnly" }, ["x"]] })
    @host.request({})
    pairs = @host.response.headers
    assert_equal [["Set-Cookie", "a=1; Path=/"], ["Set-Cookie", "b=2; HttpOnly"]],
                 pairs.select { |name, _| name == "Set-Cookie" }
  end

  def test_rack3_array_header_becomes_two_pairs
    start(->(_env) { [200, { "set-cookie" => ["a=1", "b=2"] }, ["x"]] }, lint: false)
    @host.request({})
    assert_equal [["set-cookie", "a=1"], ["set-cookie", "b=2"]],
                 @host.response.headers.select { |name, _| name == "set-cookie" }
  end

  def test_rack_prefixed_response_headers_are_not_sent
    start(->(_env) { [200, { "rack.session.options" => "x", "x-kept" => "1" }, ["x"]] }, lint: false)
    @host.request({})
    names = @host.response.headers.map(&:first)
    assert_includes names, "x-kept"
    refute(names.any? { |name| name.start_with?("rack.") })
  end

  def test_content_length_is_computed_for_an_array_body
    start(->(_env) { [200, {}, ["héllo", " ", "wörld"]] }, lint: false)
    @host.request({})
    response = @host.response
    assert_equal [["content-length", "13"]], response.headers
    assert_equal "héllo wörld".b, response.body
  end

  def test_content_length_given_by_the_app_is_kept_and_not_duplicated
    start(->(_env) { [200, { "Content-Length" => "2" }, ["ok"]] })
    @host.request({})
    assert_equal [["Content-Length", "2"]], @host.response.headers
  end

  def test_array_body_goes_out_with_the_head_in_one_write
    start(->(_env) { [200, { "content-type" => "text/plain" }, ["a", "b"]] }, lint: false, counting: true)
    writes_before = @worker_io.writes
    @host.request({})
    response = @host.response
    assert_equal "ab", response.body
    assert_equal 1, @worker_io.writes - writes_before
    assert response.frames.last.end_stream?
  end

  def test_streamed_chunks_are_written_before_the_body_finishes
    release = Queue.new
    body = Enumerator.new do |out|
      out << "data: 1\n\n"
      release.pop
      out << "data: 2\n\n"
    end
    start(->(_env) { [200, { "content-type" => "text/event-stream" }, body] }, lint: false)
    @host.request({})
    head = @host.read_frame
    first = @host.read_frame
    assert_equal Wire::FrameType::RESPONSE_HEAD, head.type
    assert_equal "data: 1\n\n", first.payload
    refute first.end_stream?
    release << :go
    second = @host.read_frame
    assert_equal "data: 2\n\n", second.payload
    last = @host.read_frame
    assert last.end_stream?
    assert_equal "", last.payload
  end

  def test_chunk_larger_than_max_payload_is_split_into_frames
    big = "z" * (Wire::Frame::MAX_PAYLOAD + 10)
    start(->(_env) { [200, {}, Enumerator.new { |out| out << big }] }, lint: false)
    @host.request({})
    response = @host.response
    sizes = response.frames.drop(1).map { |f| f.payload.bytesize }
    assert_equal [Wire::Frame::MAX_PAYLOAD, 10, 0], sizes
    assert_equal big.bytesize, response.body.bytesize
  end

  def test_app_exception_gets_a_500_and_is_logged_with_backtrace
    start(->(_env) { raise ArgumentError, "kaput" })
    @host.request({ "PATH_INFO" => "/explode" })
    response = @host.response
    assert_equal 500, response.status
    assert_equal "Internal Server Error", response.body
    assert_includes response.headers, ["content-type", "text/plain"]
    assert_match(%r{worker 2 thread 3: GET /explode: app raised: ArgumentError: kaput\n    .*link_test\.rb:\d+}, @log.string)
  end

  def test_lowlevel_error_handler_answers_for_an_app_that_raised_with_error_env_and_status
    seen = nil
    handler = lambda do |error, env, status|
      seen = [error.message, env["PATH_INFO"], status]
      [503, { "Content-Type" => "text/plain" }, ["sorry"]]
    end
    start(->(_env) { raise ArgumentError, "kaput" }, lint: false, lowlevel_error_handler: handler)
    @host.request({ "PATH_INFO" => "/explode" })
    response = @host.response
    assert_equal [503, "sorry"], [response.status, response.body]
    assert_equal ["kaput", "/explode", 500], seen
    assert_includes @log.string, "app raised; answering with lowlevel_error_handler"
  end

  def test_a_lowlevel_error_handler_that_raises_falls_back_to_the_plain_500
    start(->(_env) { raise ArgumentError, "kaput" }, lint: false,
                                                    lowlevel_error_handler: ->(_error) { raise "handler broke" })
    @host.request({ "PATH_INFO" => "/explode" })
    response = @host.response
    assert_equal [500, "Internal Server Error"], [response.status, response.body]
    assert_includes @log.string, "lowlevel_error_handler raised"
  end

  def test_invalid_status_gets_a_500
    body = TrackedBody.new(["x"])
    start(->(_env) { [42, {}, body] }, lint: false)
    @host.request({})
    assert_equal 500, @host.response.status
    assert_equal 1, body.closes
  end

  def test_body_raising_after_the_head_sends_response_abort
    body = TrackedBody.new(["partial"], raise_after: 1)
    start(->(_env) { [200, { "content-length" => "100" }, body] }, lint: false)
    @host.request({})
    response = @host.response
    assert_equal 200, response.status
    assert_equal "partial", response.body
    assert_equal "RuntimeError: boom", response.aborted
    assert_match(/response body raised after the head was sent: RuntimeError: boom/, @log.string)
  end

  def test_body_raising_before_the_first_chunk_gets_a_500
    body = TrackedBody.new(["never"], raise_after: 0)
    start(->(_env) { [200, {}, body] }, lint: false)
    @host.request({})
    assert_equal 500, @host.response.status
  end

  def test_body_close_is_called_once_when_each_raises
    body = TrackedBody.new(["a", "b"], raise_after: 1)
    start(->(_env) { [200, {}, body] }, lint: false)
    @host.request({})
    @host.response
    assert_equal 1, body.closes
  end

  def test_body_close_is_called_once_on_success
    body = TrackedBody.new(["a", "b"])
    start(->(_env) { [200, {}, body] }, lint: false)
    @host.request({})
    assert_equal "ab", @host.response.body
    assert_equal 1, body.closes
  end

  def test_end_stream_is_sent_only_after_body_close_returns
    in_close = Queue.new
    release = Queue.new
    body = TrackedBody.new(["a"])
    body.define_singleton_method(:close) do
      super()
      in_close << true
      release.pop
    end
    start(->(_env) { [200, {}, body] }, lint: false)
    @host.request({})
    head, chunk = @host.read_frame, @host.read_frame
    refute chunk.end_stream?
    in_close.pop
    assert_nil @host.io.wait_readable(0.2), "a frame arrived while body.close was still running"
    release << :go
    final = @host.read_frame
    assert final.end_stream?
    assert_equal [Wire::FrameType::RESPONSE_HEAD, 1], [head.type, body.closes]
  end

  def test_head_request_and_204_get_no_body_frames
    body = TrackedBody.new(["ignored"])
    start(->(env) { [env["REQUEST_METHOD"] == "HEAD" ? 200 : 204, {}, body] }, lint: false)
    @host.request({ "REQUEST_METHOD" => "HEAD" })
    head = @host.response
    assert_equal 1, head.frames.size
    assert head.frames.first.end_stream?
    @host.request({})
    no_content = @host.response
    assert_equal [204, 1], [no_content.status, no_content.frames.size]
    assert_equal 2, body.closes
  end

  def test_link_serves_requests_one_after_another
    start(->(env) { [200, {}, [env["PATH_INFO"]]] })
    bodies = (1..20).map do |i|
      @host.request({ "PATH_INFO" => "/#{i}" })
      @host.response.body
    end
    assert_equal (1..20).map { |i| "/#{i}" }, bodies
  end

  def test_goaway_from_the_host_ends_the_link
    start(ok_app)
    @host.goaway(0)
    assert @thread.join(5), "link thread did not end"
    assert_nil @host.read_frame
  end

  def test_host_closing_the_link_ends_the_thread
    start(ok_app)
    @host.close
    assert @thread.join(5), "link thread did not end"
    assert_equal "", @log.string
  end

  def test_protocol_error_is_logged_answered_with_goaway_and_closes_the_link
    start(ok_app)
    @host.io.write(Wire::Body.new(data: "stray").encode(Wire::Frame::END_STREAM))
    goaway = @host.read_frame
    assert_equal Wire::FrameType::GOAWAY, goaway.type
    assert_equal 1, Wire.decode(goaway).code
    assert_nil @host.read_frame
    assert @thread.join(5)
    assert_match(/worker 2 thread 3: protocol error: unexpected BODY on an idle worker link/, @log.string)
  end

  def test_a_frame_other_than_welcome_or_goaway_before_welcome_is_a_protocol_error
    host_io, worker_io = UNIXSocket.pair
    @host = PumaPlus::HostEnd.new(host_io)
    run_link(ok_app, io: worker_io)
    assert_equal Wire::FrameType::HELLO, @host.read_frame.type
    @host.io.write(Wire::Body.new(data: "stray").encode)
    assert_equal [Wire::GoAway::PROTOCOL_ERROR, "BODY: unexpected before WELCOME"],
                 Wire.decode(@host.read_frame).then { |goaway| [goaway.code, goaway.reason] }
    assert @thread.join(5)
  end

  def test_a_welcome_the_codec_rejects_is_a_protocol_error
    host_io, worker_io = UNIXSocket.pair
    @host = PumaPlus::HostEnd.new(host_io)
    run_link(ok_app, io: worker_io)
    @host.read_frame
    @host.io.write(Wire::Frame.encode(Wire::FrameType::WELCOME, [3, 0, 7].pack("nnN") + "x"))
    assert_equal "WELCOME: payload of 9 bytes, 8 required", Wire.decode(@host.read_frame).reason
    assert @thread.join(5)
  end

  def test_rack_hijack_dials_a_role_2_hello_naming_the_request_and_leaves_the_clients_bytes_in_the_socket
    dir = Dir.mktmpdir("puma-plus-link-test")
    server = UNIXServer.new(File.join(dir, "link.sock"))
    hijacks = UNIXServer.new(File.join(dir, "hijack.sock"))
    app = lambda do |env|
      io = env["rack.hijack"].call
      # sysread refuses an IO whose Ruby buffer holds bytes: the client's must still be in the kernel
      io.write("echo #{io.sysread(4)}")
      io.close
      [200, {}, []]
    end
    hijack = start_dialing(app, server, hijacks)
    hello = Wire.decode(Wire::Frame.read(hijack))
    assert_equal [Wire::Hello::ROLE_HIJACK, 42, 2, 3],
                 [hello.role, hello.request_id, hello.worker_index, hello.thread_index]
    hijack.write(Wire::Welcome.new(version: Wire::VERSION, link_id: 7).encode + "PING")
    assert_equal "echo PING", hijack.read
    assert_equal Wire::FrameType::HIJACK, @host.read_frame.type
    assert @host.response.frames.first.end_stream?
  ensure
    server&.close
    hijacks&.close
    FileUtils.rm_rf(dir)
  end

  def test_rack_hijack_raises_a_protocol_error_when_the_host_answers_neither_welcome_nor_goaway
    dir = Dir.mktmpdir("puma-plus-link-test")
    server = UNIXServer.new(File.join(dir, "link.sock"))
    hijacks = UNIXServer.new(File.join(dir, "hijack.sock"))
    app = lambda do |env|
      env["rack.hijack"].call
      [200, {}, ["hijacked"]]
    rescue StandardError => e
      [200, {}, ["#{e.class}: #{e.message}"]]
    end
    hijack = start_dialing(app, server, hijacks)
    Wire::Frame.read(hijack)
    hijack.write(Wire::Frame.encode(Wire::FrameType::RESPONSE_BODY, "raw"))
    assert_equal Wire::FrameType::HIJACK, @host.read_frame.type
    assert_equal "PumaPlus::Wire::ProtocolError: RESPONSE_BODY: unexpected before WELCOME", @host.response.body
    assert_nil hijack.read(1), "the worker closed the connection it could not use"
  ensure
    server&.close
    hijacks&.close
    FileUtils.rm_rf(dir)
  end

  def test_stop_sends_goaway_after_the_current_response_and_the_link_still_serves_a_crossed_request
    entered = Queue.new
    release = Queue.new
    start(lambda do |env|
      if env["PATH_INFO"] == "/slow"
        entered << true
        release.pop
      end
      [200, {}, [env["PATH_INFO"]]]
    end)
    @host.request({ "PATH_INFO" => "/slow" })
    entered.pop
    @link.stop
    release << :go
    assert_equal "/slow", @host.response.body
    goaway = @host.read_frame
    assert_equal [Wire::FrameType::GOAWAY, 0], [goaway.type, Wire.decode(goaway).code]
    @host.request({ "PATH_INFO" => "/crossed" }) # dispatched before the host read the GOAWAY
    assert_equal "/crossed", @host.response.body
    @host.close
    assert @thread.join(5)
  end

  def test_stop_on_an_idle_link_sends_goaway_and_close_if_idle_ends_it
    start(ok_app)
    @link.stop
    goaway = @host.read_frame
    assert_equal Wire::FrameType::GOAWAY, goaway.type
    @link.close_if_idle
    assert @thread.join(5)
    assert_equal "", @log.string
  end

  # ---- timing (docs/PROTOCOL.md, "Timing fields") ----

  def test_queue_time_in_env_is_dispatched_minus_runnable
    seen = nil
    start(->(env) { seen = env; [200, {}, []] })
    @host.request({}, headers_parsed_ns: 4_000_000_000, runnable_ns: 4_000_500_000, dispatched_ns: 4_012_345_678)
    @host.response
    assert_equal 11_845_678, seen["puma_plus.queue_time_ns"]
  end

  def test_body_wait_in_env_is_runnable_minus_headers_parsed_plus_the_workers_body_read
    seen = nil
    start(->(env) { seen = env; [200, {}, []] })
    @host.request({ "REQUEST_METHOD" => "POST", "CONTENT_LENGTH" => "2" }, "ok",
                  headers_parsed_ns: 4_000_000_000, runnable_ns: 6_000_000_007, dispatched_ns: 6_000_000_007)
    body_read = @host.response.head.body_read_ns
    assert_operator body_read, :>, 0
    assert_equal [2_000_000_007 + body_read, 6_000_000_007, 0],
                 seen.values_at("puma_plus.body_wait_ns", "puma_plus.runnable_at_ns", "puma_plus.queue_time_ns")
    assert(seen.values_at("puma_plus.body_wait_ns", "puma_plus.runnable_at_ns", "puma_plus.queue_time_ns")
               .all?(Integer))
  end

  def test_response_head_carries_t4_before_t5_spanning_the_app_call
    start(->(_env) { sleep 0.05; [200, {}, ["slept"]] })
    dispatched = now_ns
    @host.request({}, headers_parsed_ns: dispatched, runnable_ns: dispatched, dispatched_ns: dispatched)
    head = @host.response.head
    received = now_ns
    assert_operator dispatched, :<=, head.app_called_ns
    assert_operator head.app_called_ns, :<=, head.app_returned_ns
    assert_operator head.app_returned_ns - head.app_called_ns, :>=, 50_000_000
    assert_operator head.app_returned_ns, :<=, received
    assert_equal 0, head.body_read_ns
  end

  def test_every_kind_of_response_head_carries_the_app_call_times
    bodies = { "/array" => ["a"], "/streamed" => Enumerator.new { |out| out << "s" }, "/empty" => [] }
    start(lambda do |env|
      sleep 0.01
      [env["PATH_INFO"] == "/empty" ? 204 : 200, {}, bodies.fetch(env["PATH_INFO"])]
    end, lint: false)
    bodies.each_key do |path|
      before = now_ns
      @host.request({ "PATH_INFO" => path })
      head = @host.response.head
      assert_operator before, :<=, head.app_called_ns, path
      assert_operator head.app_returned_ns - head.app_called_ns, :>=, 10_000_000, path
    end
  end

  def test_body_read_ns_covers_body_frames_delivered_slowly
    start(->(env) { [200, {}, [env["rack.input"].read]] })
    dispatched = now_ns
    @host.request({ "REQUEST_METHOD" => "POST", "CONTENT_LENGTH" => "6" }, ["ab", "cd", "ef"], pause: 0.03,
                  headers_parsed_ns: dispatched, runnable_ns: dispatched, dispatched_ns: dispatched)
    response = @host.response
    head = response.head
    assert_equal "abcdef", response.body
    # three 30 ms pauses; the two after the first BODY frame fall inside the read for certain
    assert_operator head.body_read_ns, :>=, 60_000_000
    # the request's turn starts after dispatch; the body read lies inside T5 - T4, so service excludes it
    assert_operator head.app_called_ns, :>=, dispatched
    assert_operator head.app_returned_ns - head.app_called_ns, :>=, head.body_read_ns
  end

  def test_body_read_ns_is_zero_without_a_body
    start(ok_app)
    @host.request({})
    assert_equal 0, @host.response.head.body_read_ns
  end

  def test_500_for_an_app_that_raised_carries_t4_when_it_was_called_and_t5_when_it_raised
    start(->(_env) { sleep 0.03; raise "kaput" })
    before = now_ns
    @host.request({})
    response = @host.response
    after = now_ns
    head = response.head
    assert_equal 500, response.status
    assert_operator before, :<=, head.app_called_ns
    assert_operator head.app_returned_ns - head.app_called_ns, :>=, 30_000_000
    assert_operator head.app_returned_ns, :<=, after
  end

  def test_500_for_a_body_that_could_not_be_stored_ends_its_turn_when_the_body_was_read
    called = false
    start(->(_env) { called = true; [200, {}, []] })
    PumaPlus::RequestBody.stub(:new, UnstorableBody.new) do
      before = now_ns
      @host.request({ "REQUEST_METHOD" => "POST", "CONTENT_LENGTH" => "4" }, ["ab", "cd"], pause: 0.02)
      response = @host.response
      head = response.head
      assert_equal 500, response.status
      refute called, "the app was called with a body that could not be stored"
      assert_equal head.app_called_ns + head.body_read_ns, head.app_returned_ns
      assert_operator head.app_called_ns, :>=, before
      assert_operator head.body_read_ns, :>=, 20_000_000
    end
    assert_match(/Errno::ENOSPC/, @log.string)
    @host.request({})
    assert_equal 200, @host.response.status # the link stayed in step
  end

  def test_500_for_an_invalid_response_keeps_the_apps_t4_and_t5
    start(->(_env) { sleep 0.02; [42, {}, []] }, lint: false)
    @host.request({})
    response = @host.response
    assert_equal 500, response.status
    assert_operator response.head.app_returned_ns - response.head.app_called_ns, :>=, 20_000_000
  end

  def test_a_real_sinatra_app_gets_params_body_cookies_and_streaming
    require "sinatra/base"
    app = Class.new(Sinatra::Base) do
      set :environment, :test
      get("/hello") { "hello #{params['name']}" }
      post("/rows") { response.set_cookie("a", "1"); response.set_cookie("b", "2"); "created #{params['name']}" }
      get("/stream") { stream { |out| out << "one,"; out << "two" } }
    end
    start(app)
    @host.request({ "PATH_INFO" => "/hello", "QUERY_STRING" => "name=ruby" })
    assert_equal [200, "hello ruby"], @host.response.then { |r| [r.status, r.body] }

    @host.request({ "REQUEST_METHOD" => "POST", "PATH_INFO" => "/rows",
                    "CONTENT_TYPE" => "application/x-www-form-urlencoded", "CONTENT_LENGTH" => "11" }, "name=alpha1")
    response = @host.response
    assert_equal "created alpha1", response.body
    assert_equal 2, response.headers.count { |name, _| name.casecmp?("set-cookie") }

    @host.request({ "PATH_INFO" => "/stream" })
    assert_equal "one,two", @host.response.body
  end

  def test_websocket_commands_go_on_the_link_before_the_response_and_not_after_it
    late = nil
    app = lambda do |env|
      ws = env["puma_plus.websocket"]
      if ws.id # an event: the second request is not one
        ws.join("room")
        ws.send_message("hi")
        env["rack.response_finished"] << ->(*) { late = (ws.broadcast("room", "late") rescue $!) }
      end
      [200, { "content-type" => "text/plain" }, ["ok"]]
    end
    start(app)
    @host.request({ "puma_plus.websocket.id" => "42", "puma_plus.websocket.event" => "message",
                    "puma_plus.websocket.type" => "text" })
    commands = [Wire.decode(@host.read_frame), Wire.decode(@host.read_frame)]
    assert_equal [[Wire::WebSocketCommand::JOIN, 42, "room"], [Wire::WebSocketCommand::SEND_TEXT, 42, ""]],
                 commands.map { |c| [c.op, c.connection, c.channel] }
    assert_equal "ok", @host.response.body
    @host.request({ "PATH_INFO" => "/next" })
    assert_equal "ok", @host.response.body, "the link stays in step: nothing came after the response"
    assert_kind_of IOError, late, "a command after the response raises instead of reaching the host too late"
  end
end
