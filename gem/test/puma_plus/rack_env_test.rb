# frozen_string_literal: true

# The env a worker builds per request: a dup of a frozen prototype, the host's pairs, and the timing keys
# computed from the REQUEST's T2, T2b and T3.

require "test_helper"
require "puma_plus/rack_env"

class PumaPlus::RackEnvTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  CORPUS = File.expand_path("../../../docs/protocol/corpus", __dir__)

  def prototype
    PumaPlus::RackEnv.prototype(multithread: true, multiprocess: false)
  end

  def request_payload(pairs, headers_parsed_ns: 1_000, runnable_ns: 2_000, dispatched_ns: 3_000)
    Wire::Request.new(headers_parsed_ns: headers_parsed_ns, runnable_ns: runnable_ns, dispatched_ns: dispatched_ns,
                      pairs: pairs).payload
  end

  def test_prototype_is_frozen_and_holds_the_non_string_entries
    prototype = PumaPlus::RackEnv.prototype(multithread: false, multiprocess: true)
    assert prototype.frozen?
    assert_equal [Rack::VERSION, $stderr, false, true, false, ""],
                 prototype.values_at("rack.version", "rack.errors", "rack.multithread", "rack.multiprocess",
                                     "rack.run_once", "SCRIPT_NAME")
  end

  def test_slot_kind_says_thread_unless_the_worker_names_its_slots_fibers_or_ractors
    kinds = [nil, "fiber", "ractor"].map do |kind|
      options = kind ? { slot_kind: kind } : {}
      PumaPlus::RackEnv.build(PumaPlus::RackEnv.prototype(multithread: true, multiprocess: false, **options),
                              request_payload([]), nil)["puma_plus.slot_kind"]
    end
    assert_equal %w[thread fiber ractor], kinds
  end

  def test_build_returns_a_new_mutable_env_and_leaves_the_prototype_alone
    prototype = self.prototype
    input = StringIO.new
    payload = request_payload([["REQUEST_METHOD", "GET"], ["SCRIPT_NAME", "/app"]])
    env = PumaPlus::RackEnv.build(prototype, payload, input)
    refute env.frozen?
    assert_same input, env["rack.input"]
    assert_equal ["GET", "/app"], env.values_at("REQUEST_METHOD", "SCRIPT_NAME")
    assert_equal "", prototype["SCRIPT_NAME"]
    refute prototype.key?("rack.input")
    refute prototype.key?("puma_plus.queue_time_ns")
  end

  def test_queue_time_in_env_is_dispatched_minus_runnable
    payload = request_payload([], headers_parsed_ns: 5_000_000_000, runnable_ns: 5_000_400_000,
                                  dispatched_ns: 5_003_000_123)
    env = PumaPlus::RackEnv.build(prototype, payload, nil)
    assert_equal 2_600_123, env["puma_plus.queue_time_ns"]
  end

  def test_body_wait_in_env_is_runnable_minus_headers_parsed
    payload = request_payload([], headers_parsed_ns: 7_000_000_000, runnable_ns: 9_000_000_001,
                                  dispatched_ns: 9_000_000_001)
    env = PumaPlus::RackEnv.build(prototype, payload, nil)
    assert_equal [2_000_000_001, 0], env.values_at("puma_plus.body_wait_ns", "puma_plus.queue_time_ns")
  end

  def test_runnable_at_in_env_is_t2b_as_an_integer
    env = PumaPlus::RackEnv.build(prototype, request_payload([], runnable_ns: 2**63 + 5, dispatched_ns: 2**63 + 9), nil)
    assert_equal 2**63 + 5, env["puma_plus.runnable_at_ns"]
    %w[puma_plus.queue_time_ns puma_plus.body_wait_ns puma_plus.runnable_at_ns].each do |key|
      assert_kind_of Integer, env[key], key
    end
  end

  def test_timing_keys_cannot_be_overridden_by_the_pair_list
    payload = request_payload([["puma_plus.queue_time_ns", "0"], ["puma_plus.runnable_at_ns", "x"]])
    env = PumaPlus::RackEnv.build(prototype, payload, nil)
    assert_equal [1_000, 2_000], env.values_at("puma_plus.queue_time_ns", "puma_plus.runnable_at_ns")
  end

  def test_truncated_pairs_raise_a_protocol_error
    assert_raises(Wire::ProtocolError) { PumaPlus::RackEnv.build(prototype, request_payload([]) + "\x00\x05ab".b, nil) }
  end

  def test_a_truncated_pair_list_is_named_a_request_error_as_wire_decode_names_it
    frame = Wire::Frame.read_all(File.binread(File.join(CORPUS, "invalid-truncated-pair-list.bin"))).first
    error = assert_raises(Wire::ProtocolError) { PumaPlus::RackEnv.build(prototype, frame.payload, nil) }
    decoded = assert_raises(Wire::ProtocolError) { Wire.decode(frame) }
    assert_match(/\AREQUEST: truncated pair list: /, error.message)
    assert_equal decoded.message, error.message
  end

  def test_payload_shorter_than_the_timing_fields_raises_a_protocol_error
    frame = Wire::Frame.read_all(File.binread(File.join(CORPUS, "invalid-short-request.bin"))).first
    error = assert_raises(Wire::ProtocolError) { PumaPlus::RackEnv.build(prototype, frame.payload, nil) }
    assert_match(/REQUEST: payload of 16 bytes, at least 24 required/, error.message)
    assert_raises(Wire::ProtocolError) { PumaPlus::RackEnv.build(prototype, "".b, nil) }
  end
end
