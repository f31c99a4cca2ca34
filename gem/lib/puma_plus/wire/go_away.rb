# frozen_string_literal: true

# GOAWAY (0x03), sent by either side: the host asks a peer to finish and leave (code 0), or either side
# explains why it is closing the link (1 protocol error, 2 unsupported version, 3 internal error).
#
# u16 code | UTF-8 reason

require_relative "payload"

module PumaPlus
  module Wire
    class GoAway < Payload.struct(FrameType::GOAWAY, :code, :reason)
      NORMAL = 0
      PROTOCOL_ERROR = 1
      UNSUPPORTED_VERSION = 2
      INTERNAL_ERROR = 3
      # The reason the host gives the generation it retires after a hot restart (Generations.java); the
      # shepherd runs before_restart rather than after_stopped on it.
      HOT_RESTART = "hot restart"

      # Parses a GOAWAY payload; raises ProtocolError when it lacks the 2-byte code. The reason is
      # returned as binary bytes (decode it as UTF-8 to show it).
      def self.decode(payload)
        Payload.at_least(payload, 2)
        new(code: payload.unpack1("n"), reason: payload.byteslice(2..))
      end

      def payload
        [code, reason || ""].pack("na*")
      end

      # Whether this is the host retiring a generation for a hot restart.
      def hot_restart?
        code == NORMAL && reason_text == HOT_RESTART
      end

      # The reason as a UTF-8 String, for messages.
      def reason_text
        (reason || "").dup.force_encoding(Encoding::UTF_8).scrub
      end
    end
  end
end
