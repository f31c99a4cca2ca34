# frozen_string_literal: true

# Fuzzes the worker's frame decoding, the first stop of a request inside a worker (Frame.read, FrameReader,
# Wire.decode, RackEnv.build), with corpus cases mutated by FrameMutator, and holds the pure-Ruby and the C
# pair-list codec (RubyCodec, NativeCodec) to the same answer on every input: the same pairs, or the same
# ProtocolError.
#
# Runs for FRAME_FUZZ_SECONDS (default 3: the CI run) over seeds FRAME_FUZZ_SEED (default 1), 2, 3, ... in
# turn (FrameMutator.fuzz); a failure names the seed, the input number and the bytes.

require "test_helper"
require "puma_plus/wire"
require "puma_plus/rack_env"
require_relative "frame_mutator"

class PumaPlus::Wire::FrameFuzzTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  # Seconds one input may take through every decoder (a 1 MiB input takes a few ms).
  PER_INPUT = 2.0
  # Where the pair list starts in the payload of each frame type that carries one.
  PAIRS_AT = { "REQUEST" => 24, "RESPONSE_HEAD" => 28, "HIJACK_HEAD" => 28, "EARLY_HINTS" => 0 }.freeze
  # A ProtocolError's message names the frame type or an unknown type's code (docs/PROTOCOL.md, "Errors"); a
  # stream that ends inside a header has no type yet.
  NAMES_THE_FRAME = /\A(?:(?:[A-Z_]+|0x\h\h): |stream ended inside a frame header\z)/
  CODECS = [Wire::RubyCodec, (Wire::NativeCodec if defined?(Wire::NativeCodec))].compact
  PROTOTYPE = PumaPlus::RackEnv.prototype(multithread: false, multiprocess: false)

  # An IO over a String that records the largest read asked of it: a hostile length must never become a
  # read (an allocation) larger than MAX_PAYLOAD.
  class RecordingIO
    attr_reader :largest

    def initialize(bytes)
      @io = StringIO.new(bytes)
      @largest = 0
    end

    def read(length)
      @largest = [@largest, length].max
      @io.read(length)
    end
  end

  def test_the_native_codec_is_built_so_both_codecs_are_fuzzed
    skip_unless_native
    assert_equal 2, CODECS.size
  end

  def test_every_mutated_stream_decodes_or_is_one_protocol_error_within_the_bound_and_both_codecs_agree
    totals = Hash.new(0)
    seconds, first_seed = Wire::FrameMutator.fuzz(3) do |input, label|
      check(input, label, totals)
      totals[:inputs] += 1
    end
    puts format("frame fuzz (Ruby Frame.read/FrameReader, %<codecs>s): %<inputs>d inputs from seed %<seed>d on in %<s>g s: " \
                "%<rejected>d protocol errors, %<pairs>d pair lists compared, 0 crashes, 0 hangs",
                codecs: CODECS.map { |c| c.name.split("::").last }.join(" vs "), inputs: totals[:inputs],
                seed: first_seed, s: seconds, rejected: totals[:rejected], pairs: totals[:pairs])
    assert_operator totals[:inputs], :>=, 500, "too few inputs to be a fuzz"
    assert totals[:rejected].positive? && totals[:rejected] < totals[:inputs], "mutations should yield errors and frames"
    assert_operator totals[:pairs], :>, 0, "no pair list reached the codecs"
  end

  private

  def skip_unless_native
    return if CODECS.size == 2
    flunk("script/native did not build the C codec; CI must fuzz it") if ENV["CI"] == "true"
    skip("the C codec is not built (script/native)")
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  def check(input, context, totals)
    started = now
    frames, error = read_all(input, context)
    reader_frames, reader_error = read_from_socket(input)
    assert_equal frames.map(&:to_a), reader_frames.map(&:to_a), "#{context}: FrameReader read other frames"
    assert_equal error.inspect, reader_error.inspect, "#{context}: FrameReader raised another error"
    totals[:rejected] += 1 if error
    frames.each { |frame| check_payload(frame, context, totals) }
    took = now - started
    assert_operator took, :<, PER_INPUT, "#{context}: took #{took} s"
  rescue Minitest::Assertion
    raise
  rescue Exception => e # rubocop:disable Lint/RescueException -- any other error is the crash the fuzz looks for
    raise Minitest::Assertion, "#{context}: crashed with #{e.class}: #{e.message}\n#{e.backtrace.first(8).join("\n")}"
  end

  # Frame.read over the whole input until it ends: [frames, ProtocolError message or nil].
  def read_all(input, context)
    io = RecordingIO.new(input)
    frames = []
    error = nil
    begin
      while (frame = Wire::Frame.read(io))
        frames << frame
      end
    rescue Wire::ProtocolError => e
      assert_match NAMES_THE_FRAME, e.message, context
      error = e.message
    end
    assert_operator io.largest, :<=, Wire::Frame::MAX_PAYLOAD, "#{context}: read(#{io.largest}) asked for more than MAX_PAYLOAD"
    [frames, error]
  end

  # FrameReader, the worker link's reader, on a real socket that a thread writes the input to and closes.
  def read_from_socket(input)
    reader_io, writer_io = UNIXSocket.pair
    writer = Thread.new do
      writer_io.write(input)
    rescue IOError, SystemCallError
      nil # the reader stopped at an error and closed its end
    ensure
      writer_io.close
    end
    reader = Wire::FrameReader.new(reader_io)
    frames = []
    begin
      while (frame = reader.read)
        frames << frame
      end
      [frames, nil]
    rescue Wire::ProtocolError => e
      [frames, e.message]
    end
  ensure
    reader_io&.close
    writer&.join
  end

  # The typed decoder takes the frame or raises ProtocolError naming it; a pair list is read alike by both
  # codecs and by PairList.decode; a REQUEST builds an env (the worker's hot path) or raises ProtocolError.
  def check_payload(frame, context, totals)
    begin
      Wire.decode(frame)
    rescue Wire::ProtocolError => e
      assert e.message.start_with?("#{frame.type_name}: "), "#{context}: #{e.message.inspect} does not name the frame"
    end
    at = PAIRS_AT[frame.type_name]
    return unless at && frame.payload.bytesize >= at

    totals[:pairs] += 1
    answers = CODECS.map do |codec|
      codec.store_pairs(frame.payload, {}, at)
    rescue Wire::ProtocolError => e
      e.message
    end
    assert_equal answers.first, answers.last, "#{context}: the Ruby and C codecs disagree on a #{frame.type_name}"
    decoded = begin
      Wire::PairList.decode(frame.payload, at).to_h
    rescue Wire::ProtocolError
      :rejected
    end
    assert_equal answers.first.is_a?(Hash), decoded.is_a?(Hash), "#{context}: PairList.decode and store_pairs disagree"
    return unless frame.type == Wire::FrameType::REQUEST

    begin
      PumaPlus::RackEnv.build(PROTOTYPE, frame.payload, nil)
    rescue Wire::ProtocolError => e
      assert e.message.start_with?("REQUEST: "), "#{context}: #{e.message.inspect}"
    end
  end
end
