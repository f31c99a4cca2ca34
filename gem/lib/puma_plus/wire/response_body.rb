# frozen_string_literal: true

# RESPONSE_BODY (0x21), worker → host: a chunk of the response body, written as soon as the app yields
# it; the last one carries END_STREAM (it may be empty).

require_relative "payload"

module PumaPlus
  module Wire
    ResponseBody = Payload.bytes(FrameType::RESPONSE_BODY, :data)
  end
end
