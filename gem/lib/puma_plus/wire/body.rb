# frozen_string_literal: true

# BODY (0x11), host → worker: a slice of the request body; the last one carries END_STREAM. The worker
# collects them into rack.input (PumaPlus::RequestBody).

require_relative "frame"

module PumaPlus
  module Wire
    class Body < Struct.new(:data, keyword_init: true)
      TYPE = FrameType::BODY

      def self.decode(payload)
        new(data: payload)
      end

      def payload
        data.b
      end

      def encode(flags = 0)
        Frame.encode(TYPE, payload, flags)
      end
    end
  end
end
