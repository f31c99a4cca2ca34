# frozen_string_literal: true

# Holds the Ruby codec to the golden corpus in docs/protocol/corpus/ that the Java codec also reads: every
# .bin decodes to its .json, every .json encodes to its .bin, every invalid-* case is rejected as a protocol
# error naming the frame it breaks, and every frame type has such a case.

require "test_helper"
require "json"
require "base64"

class PumaPlus::Wire::CorpusTest < PumaPlus::TestCase
  CORPUS = File.expand_path("../../../../docs/protocol/corpus", __dir__)
  CASES = Dir[File.join(CORPUS, "*.json")].sort.map { |path| File.basename(path, ".json") }
  Wire = PumaPlus::Wire

  def test_corpus_is_present
    assert_operator CASES.size, :>=, 20, "expected the golden corpus at #{CORPUS}"
  end

  def test_every_frame_type_has_an_invalid_case
    named = CASES.select { |name| name.start_with?("invalid-") }
                 .map { |name| JSON.parse(File.read(File.join(CORPUS, "#{name}.json"))).fetch("frame") }
    assert_empty Wire::FrameType::NAMES.values - named
  end

  CASES.each do |name|
    spec = JSON.parse(File.read(File.join(CORPUS, "#{name}.json")))
    bin = File.binread(File.join(CORPUS, "#{name}.bin"))

    if name.start_with?("invalid-")
      define_method("test_#{name.tr('-', '_')}_is_rejected_as_a_protocol_error_naming_its_frame") do
        assert_equal "protocol", spec.fetch("error")
        error = assert_raises(Wire::ProtocolError) do
          Wire::Frame.read_all(bin).each { |frame| Wire.decode(frame) }
        end
        assert error.message.start_with?("#{spec.fetch('frame')}: "), "#{error.message.inspect} names #{spec.fetch('frame')}"
      end
    else
      define_method("test_#{name.tr('-', '_')}_bin_decodes_to_its_json") do
        frames = Wire::Frame.read_all(bin)
        assert_equal spec.fetch("frames").map { |f| expected_frame(f) }, frames.map { |f| decoded_frame(f) }
      end

      define_method("test_#{name.tr('-', '_')}_json_encodes_to_its_bin") do
        encoded = spec.fetch("frames").map { |f| encode_frame(f) }.join.b
        assert_equal bin.bytesize, encoded.bytesize
        assert encoded == bin, "encoding of #{name}.json differs from #{name}.bin"
      end
    end
  end

  private

  # bytes value of the corpus JSON: a string (its UTF-8 bytes), {"base64": ...}, or {"repeat":, "times":}
  def bytes(value)
    case value
    when String then value.b
    when Hash
      if value.key?("base64") then Base64.strict_decode64(value["base64"])
      else bytes(value.fetch("repeat")) * value.fetch("times")
      end
    else raise ArgumentError, "not a bytes value: #{value.inspect}"
    end
  end

  def flags(list)
    list.sum { |flag| { "END_STREAM" => Wire::Frame::END_STREAM, "GVL_WAIT" => Wire::ResponseHead::GVL_WAIT }.fetch(flag) }
  end

  def pairs(list)
    list.map { |name, value| [bytes(name), bytes(value)] }
  end

  # The corpus frame as a comparable Hash with every bytes value made binary.
  def expected_frame(f)
    fields = case f.fetch("type")
             when "HELLO" then f.slice("version", "role", "pid", "generation", "worker_index", "thread_index",
                                       "request_id")
             when "WELCOME" then f.slice("version", "link_id")
             when "GOAWAY" then { "code" => f.fetch("code"), "reason" => bytes(f.fetch("reason")) }
             when "CONFIG" then { "json" => bytes(f.fetch("json")) }
             when "PHASED_RESTART" then {}
             when "WORKER_COUNT", "EXTRA_SLOTS" then f.slice("count")
             when "REQUEST" then f.slice("headers_parsed_ns", "runnable_ns", "dispatched_ns")
                                   .merge("pairs" => pairs(f.fetch("pairs")))
             when "BODY", "RESPONSE_BODY" then { "data" => bytes(f.fetch("data")) }
             when "HIJACK" then {}
             when "RESPONSE_FILE" then f.slice("offset", "length").merge("path" => bytes(f.fetch("path")))
             when "EARLY_HINTS" then { "pairs" => pairs(f.fetch("pairs")) }
             when "RESPONSE_HEAD", "HIJACK_HEAD" then f.slice("status", "app_called_ns", "app_returned_ns", "body_read_ns")
                                         .merge("pairs" => pairs(f.fetch("pairs")),
                                                "gvl_wait_ns" => f.fetch("gvl_wait_ns", nil))
             when "RESPONSE_ABORT" then { "reason" => bytes(f.fetch("reason")) }
             when "WS_COMMAND" then f.slice("op", "code", "connection")
                                     .merge("channel" => bytes(f.fetch("channel")), "data" => bytes(f.fetch("data")))
             end
    { "type" => f.fetch("type"), "flags" => flags(f.fetch("flags")) }.merge(fields)
  end

  def decoded_frame(frame)
    message = Wire.decode(frame)
    fields = message.to_h.transform_keys(&:to_s)
    { "type" => frame.type_name, "flags" => frame.flags }.merge(fields)
  end

  def encode_frame(f)
    e = expected_frame(f)
    klass = Wire::PAYLOADS.fetch(Wire::FrameType.code_of(e.delete("type")))
    frame_flags = e.delete("flags")
    klass.new(**e.transform_keys(&:to_sym)).encode(frame_flags)
  end
end
