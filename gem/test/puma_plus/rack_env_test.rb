# frozen_string_literal: true

# The env a worker builds per request: a dup of a frozen prototype plus the host's pairs.

require "test_helper"
require "puma_plus/rack_env"

class PumaPlus::RackEnvTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire

  def test_prototype_is_frozen_and_holds_the_non_string_entries
    prototype = PumaPlus::RackEnv.prototype(multithread: false, multiprocess: true)
    assert prototype.frozen?
    assert_equal [Rack::VERSION, $stderr, false, true, false, ""],
                 prototype.values_at("rack.version", "rack.errors", "rack.multithread", "rack.multiprocess",
                                     "rack.run_once", "SCRIPT_NAME")
  end

  def test_build_returns_a_new_mutable_env_and_leaves_the_prototype_alone
    prototype = PumaPlus::RackEnv.prototype(multithread: true, multiprocess: false)
    input = StringIO.new
    payload = Wire::PairList.encode([["REQUEST_METHOD", "GET"], ["SCRIPT_NAME", "/app"]])
    env = PumaPlus::RackEnv.build(prototype, payload, input)
    refute env.frozen?
    assert_same input, env["rack.input"]
    assert_equal ["GET", "/app"], env.values_at("REQUEST_METHOD", "SCRIPT_NAME")
    assert_equal "", prototype["SCRIPT_NAME"]
    refute prototype.key?("rack.input")
  end

  def test_truncated_pairs_raise_a_protocol_error
    prototype = PumaPlus::RackEnv.prototype(multithread: true, multiprocess: false)
    assert_raises(Wire::ProtocolError) { PumaPlus::RackEnv.build(prototype, "\x00\x05ab".b, nil) }
  end
end
