# frozen_string_literal: true

# RESPONSE_FILE (0x26), worker → host: a piece of the response body that is a region of a file the host
# reads itself (Rack bodies answering to_path), so the bytes go from the page cache to the client's socket
# without passing through Ruby or the link. Takes the place of RESPONSE_BODY frames; END_STREAM as there.
#
# u64 offset | u64 length | path (absolute, printable ASCII)

require_relative "payload"

module PumaPlus
  module Wire
    class ResponseFile < Payload.struct(FrameType::RESPONSE_FILE, :offset, :length, :path)
      FORMAT = "Q>Q>"
      FIXED_SIZE = 16
      # Offset and length are below 2^63 (the host holds them as signed 64-bit values).
      LIMIT = 1 << 63
      # The host opens the path by name: absolute, printable ASCII, so no file-name encoding can matter.
      PATH = %r{\A/[\x20-\x7e]*\z}n

      # Parses a RESPONSE_FILE payload; raises ProtocolError when it names no path, offset or length is
      # 2^63 or more, or the path is not an absolute printable ASCII one.
      def self.decode(payload)
        Payload.at_least(payload, FIXED_SIZE + 1)
        offset, length = payload.unpack(FORMAT)
        raise ProtocolError, "offset or length of 2^63 or more" if offset >= LIMIT || length >= LIMIT

        path = payload.byteslice(FIXED_SIZE..)
        raise ProtocolError, "the path is not an absolute printable ASCII path" unless PATH.match?(path)

        new(offset: offset, length: length, path: path)
      end

      def payload
        [offset, length].pack(FORMAT) + path.b
      end
    end
  end
end
