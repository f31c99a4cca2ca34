# frozen_string_literal: true

# Holds both implementations of the worker's pair-list hot paths, the pure-Ruby Wire::RubyCodec and the C
# Wire::NativeCodec (when script/build compiled it), to the golden corpus in docs/protocol/corpus/: every
# pair list of a valid case stores into a Hash as its .json says and encodes back to its .bin bytes, and
# every truncated pair list is rejected by both with the same message.

require "test_helper"
require "json"
require "base64"

class PumaPlus::Wire::CodecCorpusTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  CORPUS = File.expand_path("../../../../docs/protocol/corpus", __dir__)
  NATIVE_LIBRARY = File.expand_path("../../../lib/puma_plus/wire/#{RbConfig::CONFIG['ruby_version']}/native_codec.so", __dir__)
  CODECS = [Wire::RubyCodec, (Wire::NativeCodec if defined?(Wire::NativeCodec))].compact
  # Where the pair list starts in the payload of each frame type that carries one.
  PAIRS_AT = { "REQUEST" => 24, "RESPONSE_HEAD" => 28, "HIJACK_HEAD" => 28, "EARLY_HINTS" => 0 }.freeze

  # [case name, frame type, payload, offset of its pairs] of every corpus frame that carries a pair list,
  # valid or not.
  FRAMES = Dir[File.join(CORPUS, "*.json")].sort.flat_map do |path|
    name = File.basename(path, ".json")
    bin = File.binread(path.sub(/\.json\z/, ".bin"))
    frames = []
    io = StringIO.new(bin)
    until io.eof?
      word, length = io.read(8).to_s.unpack("NN")
      break unless length

      type = Wire::FrameType::NAMES[word >> 24]
      payload = io.read(length).to_s
      next unless PAIRS_AT.key?(type)

      # a head with GVL_WAIT carries 8 more fixed bytes before its pairs
      at = PAIRS_AT.fetch(type) + (word & Wire::ResponseHead::GVL_WAIT != 0 && type.end_with?("HEAD") ? 8 : 0)
      frames << [name, type, payload, at] if payload.bytesize >= at
    end
    frames
  end

  def test_the_native_codec_serves_whenever_script_build_compiled_it
    assert_equal File.exist?(NATIVE_LIBRARY) ? Wire::NativeCodec : Wire::RubyCodec, Wire::PairList::CODEC
  end

  def test_the_corpus_has_valid_and_truncated_pair_lists_of_every_frame_type_that_carries_one
    valid = FRAMES.reject { |name, _, _| name.start_with?("invalid-") }.map { |_, type, _| type }.uniq
    invalid = FRAMES.select { |name, _, _| name.start_with?("invalid-") }.map { |_, type, _| type }.uniq
    assert_equal PAIRS_AT.keys.sort, valid.sort
    assert_operator invalid.size, :>=, 3
  end

  # Runs the block with no garbage collection under way. While CRuby 3.1 sweeps lazily, its table of interned
  # strings can hand out a second copy of a name whose first copy is alive and interned: measured, -key.dup
  # was another object for 25,352 of 1,168,882 stored names, 25,201 of them while GC.latest_gc_info[:state]
  # was :sweeping, and for none of 612,916 with GC disabled. GC.disable finishes any sweep before it returns.
  def without_lazy_sweep
    was_disabled = GC.disable
    yield
  ensure
    GC.enable unless was_disabled
  end

  CODECS.each do |codec|
    label = codec.name.split("::").last.downcase

    define_method("test_#{label}_refuses_a_negative_offset_before_reading_anything") do
      error = assert_raises(ArgumentError) { codec.store_pairs("\x00\x01a\x00\x00\x00\x01b", {}, -7) }
      assert_equal "offset can't be negative", error.message
    end

    define_method("test_#{label}_stores_every_valid_corpus_pair_list_as_decoded") do
      FRAMES.reject { |name, _, _| name.start_with?("invalid-") }.each do |name, _type, payload, at|
        expected = Wire::PairList.decode(payload, at).to_h
        stored = without_lazy_sweep do
          codec.store_pairs(payload, {}, at).tap do |pairs|
            pairs.each_key { |key| assert_same(-key.dup, key, "#{name}: #{key.inspect} is interned") }
          end
        end
        assert_equal expected, stored, name
        assert stored.keys.all? { |key| key.frozen? && key.encoding == Encoding::BINARY }, name
        assert stored.values.all? { |value| !value.frozen? && value.encoding == Encoding::BINARY }, name
      end
    end

    define_method("test_#{label}_encodes_every_valid_corpus_pair_list_to_its_bytes") do
      FRAMES.reject { |name, _, _| name.start_with?("invalid-") }.each do |name, _type, payload, at|
        pairs = Wire::PairList.decode(payload, at)
        prefix = payload.byteslice(0, at)
        assert_equal payload, codec.append_pairs(prefix.dup, pairs), name
        one_by_one = prefix.dup
        pairs.each { |pair_name, value| codec.append_pair(one_by_one, pair_name, value) }
        assert_equal payload, one_by_one, name
      end
    end

    define_method("test_#{label}_rejects_every_truncated_corpus_pair_list_as_the_ruby_codec_does") do
      FRAMES.select { |name, _, _| name.start_with?("invalid-") }.each do |name, _type, payload, at|
        expected = assert_raises(Wire::ProtocolError, name) { Wire::RubyCodec.store_pairs(payload, {}, at) }
        error = assert_raises(Wire::ProtocolError, name) { codec.store_pairs(payload, {}, at) }
        assert_equal expected.message, error.message, name
      end
    end

    define_method("test_#{label}_rejects_a_name_longer_than_a_u16") do
      error = assert_raises(Wire::ProtocolError) { codec.append_pair(+"".b, "n" * 65_536, "v") }
      assert_equal "pair name of 65536 bytes exceeds 65535", error.message
    end

    define_method("test_#{label}_runs_in_a_ractor") do
      payload = Wire::PairList.encode([%w[PATH_INFO /hello]])
      result = Ractor.new(codec, Ractor.make_shareable(payload)) { |c, p| c.store_pairs(p, {}, 0).to_a.flatten }.take
      assert_equal %w[PATH_INFO /hello], result
    end
  end
end
