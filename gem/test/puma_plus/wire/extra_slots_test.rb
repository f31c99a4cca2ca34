# frozen_string_literal: true

# EXTRA_SLOTS: a desired count that may be 0 (retire every extra slot), and refusal of a payload that is
# not exactly a u32.

require "test_helper"

class PumaPlus::Wire::ExtraSlotsTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire

  def test_a_count_of_zero_round_trips_because_it_retires_every_extra_slot
    frame = Wire::Frame.read_all(Wire::ExtraSlots.new(count: 0).encode).first
    assert_equal Wire::FrameType::EXTRA_SLOTS, frame.type
    assert_equal 0, Wire.decode(frame).count
  end

  def test_a_payload_other_than_four_bytes_is_a_protocol_error
    [3, 5].each do |size|
      assert_raises(Wire::ProtocolError) { Wire::ExtraSlots.decode("\x00".b * size) }
    end
  end
end
