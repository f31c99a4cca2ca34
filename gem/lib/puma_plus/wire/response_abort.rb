# frozen_string_literal: true

# RESPONSE_ABORT (0x22), worker → host: the response cannot be completed (the body raised after the head
# went out). The host truncates the client's response visibly; the link becomes idle.

require_relative "payload"

module PumaPlus
  module Wire
    ResponseAbort = Payload.bytes(FrameType::RESPONSE_ABORT, :reason)
  end
end
