# frozen_string_literal: true

# WELCOME (0x02), the host's acceptance of a HELLO: the protocol version it will speak on this link and
# the link's id. A worker thread starts taking requests once it has read this.
#
# u16 version | u16 reserved (0) | u32 link id

require_relative "payload"

module PumaPlus
  module Wire
    class Welcome < Payload.struct(FrameType::WELCOME, :version, :link_id)
      FORMAT = "nnN"
      SIZE = 8

      # Parses a WELCOME payload; raises ProtocolError unless it is exactly 8 bytes. The reserved field
      # is ignored.
      def self.decode(payload)
        Payload.exactly(payload, SIZE)
        version, _reserved, link_id = payload.unpack(FORMAT)
        new(version: version, link_id: link_id)
      end

      def payload
        [version, 0, link_id].pack(FORMAT)
      end
    end
  end
end
