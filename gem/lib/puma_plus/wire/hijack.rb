# frozen_string_literal: true

# HIJACK (0x23) and HIJACK_HEAD (0x24), worker → host: the app took the client connection (rack.hijack).
# HIJACK (empty payload) announces a full hijack from inside app.call; the response still ends with a
# RESPONSE_HEAD carrying END_STREAM whose status and timing are for the log and metrics only. HIJACK_HEAD
# (the RESPONSE_HEAD layout) is a partial hijack: the host writes this head to the client without body
# framing and the worker's response ends with it. Either way the raw bytes then travel over a second
# connection the worker dials with HELLO role 2 (docs/PROTOCOL.md, "Hijack").

require_relative "payload"
require_relative "response_head"

module PumaPlus
  module Wire
    Hijack = Payload.empty(FrameType::HIJACK)

    # Decodes and encodes as ResponseHead; only the frame type differs.
    class HijackHead < ResponseHead
      TYPE = FrameType::HIJACK_HEAD
    end
  end
end
