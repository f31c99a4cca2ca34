# frozen_string_literal: true

# ResponseWriter on its own over a socket pair: edge cases of the app's response that the link tests do
# not reach.

require "test_helper"
require "socket"

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
end
