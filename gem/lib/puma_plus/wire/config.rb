# frozen_string_literal: true

# CONFIG (0x04), sent once by the shepherd right after WELCOME: the resolved configuration as a UTF-8 JSON
# object (keys in docs/CONFIG.md). The codec carries the bytes; PumaPlus::Configuration produces them.

require_relative "payload"

module PumaPlus
  module Wire
    Config = Payload.bytes(FrameType::CONFIG, :json)
  end
end
