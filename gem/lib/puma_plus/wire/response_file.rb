# frozen_string_literal: true

# RESPONSE_FILE (0x26), worker → host: a piece of the response body that is a region of a file the host
# reads itself (Rack bodies answering to_path), so the bytes go from the page cache to the client's socket
# without passing through Ruby or the link. Takes the place of RESPONSE_BODY frames; END_STREAM as there.
#
# u64 offset | u64 length | path (bytes, absolute)

require_relative "payload"

module PumaPlus
  module Wire
    class ResponseFile < Struct.new(:offset, :length, :path, keyword_init: true)
      include Payload
      TYPE = FrameType::RESPONSE_FILE
      FORMAT = "Q>Q>"
      FIXED_SIZE = 16

      # Parses a RESPONSE_FILE payload; raises ProtocolError when it is shorter than 16 bytes or names no
      # path.
      def self.decode(payload)
        if payload.bytesize <= FIXED_SIZE
          raise ProtocolError, "RESPONSE_FILE payload of #{payload.bytesize} bytes, more than #{FIXED_SIZE} required"
        end

        offset, length = payload.unpack(FORMAT)
        new(offset: offset, length: length, path: payload.byteslice(FIXED_SIZE..))
      end

      def payload
        [offset, length].pack(FORMAT) + path.b
      end
    end
  end
end
