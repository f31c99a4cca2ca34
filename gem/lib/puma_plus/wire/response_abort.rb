# frozen_string_literal: true

# RESPONSE_ABORT (0x22), worker → host: the response cannot be completed (the body raised after the head
# went out). The host truncates the client's response visibly; the link becomes idle.

require_relative "frame"

module PumaPlus
  module Wire
    class ResponseAbort < Struct.new(:reason, keyword_init: true)
      TYPE = FrameType::RESPONSE_ABORT

      def self.decode(payload)
        new(reason: payload)
      end

      def payload
        reason.b
      end

      def encode(flags = 0)
        Frame.encode(TYPE, payload, flags)
      end
    end
  end
end
