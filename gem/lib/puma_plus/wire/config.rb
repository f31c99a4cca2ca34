# frozen_string_literal: true

# CONFIG (0x04), sent once by the shepherd right after WELCOME: the resolved configuration as a UTF-8 JSON
# object (keys in docs/CONFIG.md). The codec carries the bytes; PumaPlus::Configuration produces them.

require_relative "frame"

module PumaPlus
  module Wire
    class Config < Struct.new(:json, keyword_init: true)
      TYPE = FrameType::CONFIG

      def self.decode(payload)
        new(json: payload)
      end

      def payload
        json.b
      end

      def encode(flags = 0)
        Frame.encode(TYPE, payload, flags)
      end
    end
  end
end
