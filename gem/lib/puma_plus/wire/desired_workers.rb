# frozen_string_literal: true

# DESIRED_WORKERS (0x05, protocol version 3), host → shepherd: how many worker processes to run. The
# autoscaler's fork actuator sends it; the shepherd forks or stops workers to match.
#
# u32 count

require_relative "payload"

module PumaPlus
  module Wire
    class DesiredWorkers < Struct.new(:count, keyword_init: true)
      include Payload
      TYPE = FrameType::DESIRED_WORKERS
      FORMAT = "N"
      SIZE = 4

      # Parses a DESIRED_WORKERS payload; raises ProtocolError unless it is exactly 4 bytes.
      def self.decode(payload)
        unless payload.bytesize == SIZE
          raise ProtocolError, "DESIRED_WORKERS payload of #{payload.bytesize} bytes, #{SIZE} required"
        end

        new(count: payload.unpack1(FORMAT))
      end

      def payload
        [count].pack(FORMAT)
      end
    end
  end
end
