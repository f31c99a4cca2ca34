# frozen_string_literal: true

# RESPONSE_HEAD (0x20), worker → host: the status and headers the app returned, one pair per header value
# (a repeated name is a multi-value header), and the worker's timing points for the request. END_STREAM
# set means the response has no body frames.
#
# +---------------------------------+---------------------------------+
# |          status (u16)           |        reserved (u16, 0)        |
# +---------------------------------+---------------------------------+
# |                  app called, T4 (u64, ns)                         |
# +-------------------------------------------------------------------+
# |                  app returned, T5 (u64, ns)                       |
# +-------------------------------------------------------------------+
# |                  body read (u64, ns)                              |
# +-------------------------------------------------------------------+
# |                  header pair list ...                             |
# +-------------------------------------------------------------------+
#
# T4 and T5 are CLOCK_MONOTONIC readings of the worker; body read is a duration (docs/PROTOCOL.md,
# "Timing fields").

require_relative "payload"
require_relative "pair_list"

module PumaPlus
  module Wire
    class ResponseHead < Payload.struct(FrameType::RESPONSE_HEAD, :status, :app_called_ns, :app_returned_ns,
                                        :body_read_ns, :pairs)
      # status, reserved, T4, T5, body read ns.
      PREFIX_FORMAT = "nnQ>Q>Q>"
      FIXED_SIZE = 28

      # Parses a RESPONSE_HEAD (or, called on HijackHead, a HIJACK_HEAD) payload; raises ProtocolError when
      # it is shorter than its 28 fixed bytes or its pair list is truncated. The reserved field is ignored.
      def self.decode(payload)
        Payload.at_least(payload, FIXED_SIZE)
        status, _reserved, app_called_ns, app_returned_ns, body_read_ns = payload.unpack(PREFIX_FORMAT)
        new(status: status, app_called_ns: app_called_ns, app_returned_ns: app_returned_ns,
            body_read_ns: body_read_ns, pairs: PairList.decode(payload, FIXED_SIZE))
      end

      # Builds the payload directly from a status, the timing points (ns; see the layout above) and any
      # Enumerable of [name, value]. Returns a new binary String. The worker's hot path.
      def self.payload(status, app_called_ns, app_returned_ns, body_read_ns, pairs)
        PairList.encode(pairs, [status, 0, app_called_ns, app_returned_ns, body_read_ns].pack(PREFIX_FORMAT))
      end

      # The frame type, flags and length (0 until the payload is in), then the fixed fields.
      FRAME_PREFIX_FORMAT = "NN#{PREFIX_FORMAT}".freeze # frozen: a Ractor slot reads it

      # Appends the whole frame (header, then the payload #payload builds) to the binary String +buffer+
      # without building the payload separately, and returns the buffer; called on HijackHead it appends a
      # HIJACK_HEAD. Raises ProtocolError when the payload exceeds Frame::MAX_PAYLOAD. The worker's hot path.
      def self.append_frame(buffer, flags, status, app_called_ns, app_returned_ns, body_read_ns, pairs)
        start = buffer.bytesize
        [(self::TYPE << 24) | (flags & Frame::FLAGS_MASK), 0, status, 0, app_called_ns, app_returned_ns, body_read_ns]
          .pack(FRAME_PREFIX_FORMAT, buffer: buffer)
        PairList::CODEC.append_pairs(buffer, pairs.to_a)
        length = buffer.bytesize - start - Frame::HEADER_SIZE
        raise ProtocolError, "payload of #{length} bytes exceeds #{Frame::MAX_PAYLOAD}" if length > Frame::MAX_PAYLOAD

        4.times { |i| buffer.setbyte(start + 4 + i, (length >> (24 - 8 * i)) & 0xFF) }
        buffer
      end

      def payload
        ResponseHead.payload(status, app_called_ns, app_returned_ns, body_read_ns, pairs)
      end
    end
  end
end
