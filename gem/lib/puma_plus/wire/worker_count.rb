# frozen_string_literal: true

# WORKER_COUNT (0x07, host → shepherd, version 3): how many worker processes the shepherd should run (TTIN,
# TTOU). A desired count, never a delta: the shepherd forks or retires workers until it runs that many.
#
# u32 count (>= 1)

require_relative "payload"

module PumaPlus
  module Wire
    class WorkerCount < Struct.new(:count, keyword_init: true)
      include Payload
      TYPE = FrameType::WORKER_COUNT
      FORMAT = "N"
      SIZE = 4

      # Raises ProtocolError unless the payload is 4 bytes holding a count >= 1.
      def self.decode(payload)
        raise ProtocolError, "WORKER_COUNT payload of #{payload.bytesize} bytes, #{SIZE} required" unless payload.bytesize == SIZE

        count = payload.unpack1(FORMAT)
        raise ProtocolError, "WORKER_COUNT of 0" if count.zero?

        new(count: count)
      end

      def payload
        [count].pack(FORMAT)
      end
    end
  end
end
