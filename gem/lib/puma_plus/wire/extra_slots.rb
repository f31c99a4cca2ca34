# frozen_string_literal: true

# EXTRA_SLOTS (0x08, host → shepherd, version 3): how many slots beyond `threads` the worker processes
# should run in all, for the Ractor and thread actuators. A desired count, never a delta; 0 retires every
# extra slot. The shepherd spreads it over its worker processes (docs/PROTOCOL.md, "Extra slots").
#
# u32 count (>= 0)

require_relative "payload"

module PumaPlus
  module Wire
    class ExtraSlots < Struct.new(:count, keyword_init: true)
      include Payload
      TYPE = FrameType::EXTRA_SLOTS
      FORMAT = "N"
      SIZE = 4

      # Raises ProtocolError unless the payload is exactly 4 bytes.
      def self.decode(payload)
        raise ProtocolError, "EXTRA_SLOTS payload of #{payload.bytesize} bytes, #{SIZE} required" unless payload.bytesize == SIZE

        new(count: payload.unpack1(FORMAT))
      end

      def payload
        [count].pack(FORMAT)
      end
    end
  end
end
