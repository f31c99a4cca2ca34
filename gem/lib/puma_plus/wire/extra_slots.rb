# frozen_string_literal: true

# EXTRA_SLOTS (0x08, host → shepherd, version 3): how many slots beyond `threads` the worker processes
# should run in all, for the Ractor and thread actuators. A desired count, never a delta; 0 retires every
# extra slot. The shepherd spreads it over its worker processes (docs/PROTOCOL.md, "Extra slots").
#
# u32 count (>= 0)

require_relative "desired_count"

module PumaPlus
  module Wire
    ExtraSlots = DesiredCount.of(FrameType::EXTRA_SLOTS, 0)
  end
end
