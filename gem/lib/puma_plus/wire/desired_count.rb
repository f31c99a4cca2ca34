# frozen_string_literal: true

# What WORKER_COUNT and EXTRA_SLOTS share: the payload is one u32, a desired total (never a delta, so a
# repeated or late frame cannot over- or under-shoot) of at least the type's MINIMUM.
#
# u32 count

require_relative "payload"

module PumaPlus
  module Wire
    class DesiredCount < Struct.new(:count, keyword_init: true)
      include Payload
      FORMAT = "N"
      SIZE = 4

      # The payload class of frame type +type+, whose count is at least +minimum+.
      def self.of(type, minimum)
        Class.new(self) do
          const_set(:TYPE, type)
          const_set(:MINIMUM, minimum)
        end
      end

      # Raises ProtocolError unless the payload is 4 bytes holding a count of at least MINIMUM.
      def self.decode(payload)
        Payload.exactly(payload, SIZE)
        count = payload.unpack1(FORMAT)
        raise ProtocolError, "count #{count}, at least #{self::MINIMUM} required" if count < self::MINIMUM

        new(count: count)
      end

      def payload
        [count].pack(FORMAT)
      end
    end
  end
end
