# frozen_string_literal: true

# What WORKER_COUNT and EXTRA_SLOTS share: the payload is one u32, a desired total (never a delta) of at
# least the class's MINIMUM.
#
# u32 count

require_relative "payload"

module PumaPlus
  module Wire
    module DesiredCount
      include Payload
      FORMAT = "N"
      SIZE = 4

      def self.included(base)
        base.extend(ClassMethods)
      end

      module ClassMethods
        # Raises ProtocolError unless the payload is 4 bytes holding a count of at least MINIMUM.
        def decode(payload)
          name = FrameType.name_of(self::TYPE)
          raise ProtocolError, "#{name} payload of #{payload.bytesize} bytes, #{SIZE} required" unless payload.bytesize == SIZE

          count = payload.unpack1(FORMAT)
          raise ProtocolError, "#{name} of #{count}, at least #{self::MINIMUM} required" if count < self::MINIMUM

          new(count: count)
        end
      end

      def payload
        [count].pack(FORMAT)
      end
    end
  end
end
