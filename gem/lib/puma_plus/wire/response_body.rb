# frozen_string_literal: true

# RESPONSE_BODY (0x21), worker → host: a chunk of the response body, written as soon as the app yields
# it; the last one carries END_STREAM (it may be empty).

require_relative "frame"

module PumaPlus
  module Wire
    class ResponseBody < Struct.new(:data, keyword_init: true)
      TYPE = FrameType::RESPONSE_BODY

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
