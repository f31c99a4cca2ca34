# frozen_string_literal: true

# BODY (0x11), host → worker: a slice of the request body; the last one carries END_STREAM. The worker
# collects them into rack.input (PumaPlus::RequestBody).

require_relative "payload"

module PumaPlus
  module Wire
    Body = Payload.bytes(FrameType::BODY, :data)
  end
end
