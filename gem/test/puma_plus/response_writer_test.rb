# frozen_string_literal: true

# ResponseWriter on its own over a socket pair: edge cases of the app's response that the link tests do
# not reach.

require "test_helper"
require "socket"
require "tempfile"

class PumaPlus::ResponseWriterTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  ENV_GET = { "REQUEST_METHOD" => "GET", "PATH_INFO" => "/" }.freeze

  class ClosingBody
    attr_reader :closes

    def initialize(chunks, close_error: nil)
      @chunks = chunks
      @close_error = close_error
      @closes = 0
    end

    def each(&block)
      @chunks.each(&block)
    end

    def close
      @closes += 1
      raise @close_error if @close_error
    end
  end

  def setup
    @worker_io, host_io = UNIXSocket.pair
    @host = PumaPlus::HostEnd.new(host_io)
    @log = StringIO.new
    @writer = PumaPlus::ResponseWriter.new(@worker_io, context: "worker 0 thread 0", log: @log)
  end

  def teardown
    @worker_io.close unless @worker_io.closed?
    @host.close
  end

  # Writes the app's response with fixed timing points: T4, T5 and a body read of 0 ns.
  def write(status, headers, body)
    @writer.write(ENV_GET, status, headers, body, 1_000, 2_000, 0)
  end

  def test_close_raising_is_logged_and_the_response_still_ends
    body = ClosingBody.new(["ok"], close_error: RuntimeError.new("close failed"))
    write(200, {}, body)
    response = @host.response
    assert_equal ["ok", nil, 1], [response.body, response.aborted, body.closes]
    assert_match(/body.close raised: RuntimeError: close failed/, @log.string)
  end

  def test_head_larger_than_max_payload_gets_a_500
    body = ClosingBody.new(["x"])
    write(200, { "x-huge" => "v" * Wire::Frame::MAX_PAYLOAD }, body)
    assert_equal 500, @host.response.status
    assert_equal 1, body.closes
  end

  def test_broken_link_raises_link_broken_and_still_closes_the_body
    @host.close
    body = ClosingBody.new(["x"])
    assert_raises(PumaPlus::ResponseWriter::LinkBroken) { write(200, {}, body) }
    assert_equal 1, body.closes
  end

  def test_body_whose_to_ary_returns_nil_is_streamed_with_each
    body = ClosingBody.new(["<p>", "row</p>"])
    def body.to_ary = nil # what Rails 6.1's ActionDispatch::Response::RackBody does
    write(302, { "location" => "/rows" }, body)
    response = @host.response
    assert_equal [302, "<p>row</p>", 1], [response.status, response.body, body.closes]
  end

  def test_empty_chunks_are_not_sent_as_frames
    write(200, {}, ClosingBody.new(["", "a", "", "b"]))
    response = @host.response
    assert_equal ["a", "b", ""], response.frames.drop(1).map(&:payload)
  end

  def test_empty_streamed_body_is_a_head_with_end_stream
    write(200, { "content-length" => "0" }, ClosingBody.new([]))
    response = @host.response
    assert_equal 1, response.frames.size
    assert response.frames.first.end_stream?
  end

  def test_status_given_as_a_string_is_accepted
    write("201", {}, [])
    assert_equal 201, @host.response.status
  end

  def test_header_values_that_are_not_strings_are_stringified
    write(200, { "x-count" => 3 }, [])
    assert_includes @host.response.headers, ["x-count", "3"]
  end

  # A Rack 3 streaming body: call(stream), close once.
  class StreamingBody
    attr_reader :closes

    def initialize
      @closes = 0
    end

    def call(stream)
      stream.write("one ")
      stream << "two"
      stream.close
    end

    def close
      @closes += 1
    end
  end

  def test_streaming_body_writes_each_part_as_a_frame_and_ends_when_call_returns
    body = StreamingBody.new
    @writer.write(ENV_GET.merge("rack.input" => StringIO.new("")), 200, {}, body, 1_000, 2_000, 0)
    response = @host.response
    assert_equal [200, "one two", 1], [response.status, response.body, body.closes]
    assert_equal %w[RESPONSE_HEAD RESPONSE_BODY RESPONSE_BODY], response.frames.first(3).map(&:type_name)
  end

  def test_file_body_is_sent_as_a_response_file_naming_the_path_with_its_length
    Tempfile.create("puma-plus-file") do |file|
      file.write("x" * 5000)
      file.flush
      body = ClosingBody.new(["never iterated"])
      body.define_singleton_method(:to_path) { file.path }
      write(200, { "content-type" => "text/plain" }, body)
      head = Wire.decode(@host.read_frame)
      frame = @host.read_frame
      assert_equal "RESPONSE_FILE", frame.type_name
      assert frame.end_stream?
      assert_equal [0, 5000, file.path], Wire.decode(frame).to_h.values_at(:offset, :length, :path)
      assert_includes head.pairs, %w[content-length 5000]
      assert_equal 1, body.closes
    end
  end

  def test_file_body_with_a_206_or_another_length_is_iterated_instead
    Tempfile.create("puma-plus-file") do |file|
      file.write("0123456789")
      file.flush
      [[206, {}], [200, { "content-length" => "4" }]].each do |status, headers|
        body = ClosingBody.new(["0123"])
        body.define_singleton_method(:to_path) { file.path }
        write(status, headers, body)
        assert_equal "0123", @host.response.body
      end
    end
  end

  def test_early_hints_go_out_before_the_head_and_not_after
    @writer.reset
    @writer.write_early_hints("link" => ["</a.css>; rel=preload", "</b.js>; rel=preload"])
    frame = @host.read_frame
    assert_equal "EARLY_HINTS", frame.type_name
    assert_equal [["link", "</a.css>; rel=preload"], ["link", "</b.js>; rel=preload"]], Wire.decode(frame).pairs
    write(204, {}, [])
    assert_equal 204, @host.response.status
    @writer.write_early_hints("link" => "</late.css>")
    @worker_io.close
    assert_nil @host.read_frame, "no EARLY_HINTS after the head"
  end

  def test_after_a_full_hijack_the_head_carries_only_status_and_timing
    body = ClosingBody.new(["ignored"])
    @writer.write_hijacked(-1, body, 1_000, 2_000, 0)
    response = @host.response
    assert_equal [200, [], "", 1], [response.status, response.head.pairs, response.body, body.closes]
  end
end
