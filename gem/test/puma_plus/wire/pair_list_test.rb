# frozen_string_literal: true

# The pair list: order and repeats survive, bytes pass through unchanged, truncation is refused.

require "test_helper"

class PumaPlus::Wire::PairListTest < PumaPlus::TestCase
  PairList = PumaPlus::Wire::PairList

  def test_pairs_round_trip_in_order_with_repeats_and_raw_bytes
    pairs = [["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x-raw", "\xff\x00\x80".b], ["", ""], ["k", "日本"]]
    decoded = PairList.decode(PairList.encode(pairs))
    assert_equal pairs.map { |n, v| [n.b, v.b] }, decoded
    assert(decoded.flatten.all? { |s| s.encoding == Encoding::BINARY })
  end

  def test_decoding_starts_at_the_given_offset
    payload = "\x00\xc8\x00\x00".b + PairList.encode([["a", "b"]])
    assert_equal [["a", "b"]], PairList.decode(payload, 4)
  end

  def test_truncated_name_length_name_value_length_or_value_is_a_protocol_error
    whole = PairList.encode([["name", "value"]])
    (1...whole.bytesize).each do |cut|
      assert_raises(PumaPlus::Wire::ProtocolError, "cut at #{cut}") { PairList.decode(whole.byteslice(0, cut)) }
    end
  end

  def test_name_longer_than_u16_is_refused_on_encode
    assert_raises(PumaPlus::Wire::ProtocolError) { PairList.encode([["n" * 65_536, ""]]) }
  end

  def test_store_puts_every_pair_into_the_hash_with_frozen_names
    hash = PairList.store(PairList.encode([["A", "1"], ["B", "\xff".b], ["A", "3"]]), {})
    assert_equal({ "A" => "3", "B" => "\xff".b }, hash)
    assert(hash.keys.all?(&:frozen?))
    refute(hash.values.any?(&:frozen?))
  end

  def test_store_starts_at_the_given_offset
    payload = ("\x00".b * 24) + PairList.encode([["A", "1"]])
    assert_equal({ "A" => "1" }, PairList.store(payload, {}, 24))
  end

  def test_store_rejects_every_truncation
    whole = PairList.encode([["name", "value"], ["n2", "v2"]])
    (1...whole.bytesize).each do |cut|
      next if cut == 15 # the first pair ends exactly here: a valid one-pair list

      assert_raises(PumaPlus::Wire::ProtocolError, "cut at #{cut}") { PairList.store(whole.byteslice(0, cut), {}) }
    end
  end
end
