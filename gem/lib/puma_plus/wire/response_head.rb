# frozen_string_literal: true

# RESPONSE_HEAD (0x20), worker → host: the status and headers the app returned, one pair per header value
# (a repeated name is a multi-value header). END_STREAM set means the response has no body frames.
#
# u16 status | u16 reserved (0) | header pair list

require_relative "payload"
require_relative "pair_list"

module PumaPlus
  module Wire
    class ResponseHead < Struct.new(:status, :pairs, keyword_init: true)
      include Payload
      TYPE = FrameType::RESPONSE_HEAD
      PREFIX_FORMAT = "nn"

      # Parses a RESPONSE_HEAD payload; raises ProtocolError when it is shorter than 4 bytes or its pair
      # list is truncated.
      def self.decode(payload)
        if payload.bytesize < 4
          raise ProtocolError, "RESPONSE_HEAD payload of #{payload.bytesize} bytes, at least 4 required"
        end

        new(status: payload.unpack1("n"), pairs: PairList.decode(payload, 4))
      end

      # Builds the payload directly from a status and any Enumerable of [name, value].
      def self.payload(status, pairs)
        PairList.encode(pairs, [status, 0].pack(PREFIX_FORMAT))
      end

      def payload
        ResponseHead.payload(status, pairs)
      end
    end
  end
end
