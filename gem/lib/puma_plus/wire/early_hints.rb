# frozen_string_literal: true

# EARLY_HINTS (0x25), worker → host: headers the app passed to env["rack.early_hints"] while its request
# runs, before RESPONSE_HEAD; the protocol sends them as an informational 103 response where it can (HTTP/1.1
# today) and drops them otherwise. The payload is the header pair list, one pair per value.

require_relative "payload"
require_relative "pair_list"

module PumaPlus
  module Wire
    class EarlyHints < Payload.struct(FrameType::EARLY_HINTS, :pairs)
      # Raises ProtocolError for a truncated pair list.
      def self.decode(payload)
        new(pairs: PairList.decode(payload))
      end

      def payload
        PairList.encode(pairs)
      end
    end
  end
end
