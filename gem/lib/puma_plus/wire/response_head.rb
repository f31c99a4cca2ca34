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
# |                  GVL wait (u64, ns), only with flag GVL_WAIT       |
# +-------------------------------------------------------------------+
# |                  header pair list ...                             |
# +-------------------------------------------------------------------+
#
# T4 and T5 are CLOCK_MONOTONIC readings of the worker; body read and GVL wait are durations
# (docs/PROTOCOL.md, "Timing fields"). The frame flag GVL_WAIT (0x000002, version 6) says the GVL wait field is
# there; a head without it carries no GVL measurement (gvl_wait_ns nil: unknown, never 0).

require_relative "payload"
require_relative "pair_list"

module PumaPlus
  module Wire
    class ResponseHead < Payload.struct(FrameType::RESPONSE_HEAD, :status, :app_called_ns, :app_returned_ns,
                                        :body_read_ns, :pairs, :gvl_wait_ns)
      # status, reserved, T4, T5, body read ns.
      PREFIX_FORMAT = "nnQ>Q>Q>"
      FIXED_SIZE = 28
      # The frame flag saying the GVL wait field follows body read (version 6).
      GVL_WAIT = 0x000002
      # status, reserved, T4, T5, body read ns, GVL wait ns.
      GVL_PREFIX_FORMAT = "nnQ>Q>Q>Q>"
      GVL_FIXED_SIZE = 36

      # Parses a RESPONSE_HEAD (or, called on HijackHead, a HIJACK_HEAD) payload sent with frame +flags+;
      # raises ProtocolError when it is shorter than its fixed bytes (28, or 36 with GVL_WAIT) or its pair
      # list is truncated. The reserved field is ignored; gvl_wait_ns is nil without GVL_WAIT.
      def self.decode(payload, flags = 0)
        if flags & GVL_WAIT != 0
          Payload.at_least(payload, GVL_FIXED_SIZE)
          status, _reserved, app_called_ns, app_returned_ns, body_read_ns, gvl_wait_ns = payload.unpack(GVL_PREFIX_FORMAT)
          fixed = GVL_FIXED_SIZE
        else
          Payload.at_least(payload, FIXED_SIZE)
          status, _reserved, app_called_ns, app_returned_ns, body_read_ns = payload.unpack(PREFIX_FORMAT)
          fixed = FIXED_SIZE
        end
        new(status: status, app_called_ns: app_called_ns, app_returned_ns: app_returned_ns,
            body_read_ns: body_read_ns, gvl_wait_ns: gvl_wait_ns, pairs: PairList.decode(payload, fixed))
      end

      # Builds the payload directly from a status, the timing points (ns; see the layout above), any
      # Enumerable of [name, value] and the GVL wait (ns, or nil when not measured: then the frame must go
      # without GVL_WAIT, see .flags). Returns a new binary String. The worker's hot path.
      def self.payload(status, app_called_ns, app_returned_ns, body_read_ns, pairs, gvl_wait_ns = nil)
        fixed = if gvl_wait_ns
                  [status, 0, app_called_ns, app_returned_ns, body_read_ns, gvl_wait_ns].pack(GVL_PREFIX_FORMAT)
                else
                  [status, 0, app_called_ns, app_returned_ns, body_read_ns].pack(PREFIX_FORMAT)
                end
        PairList.encode(pairs, fixed)
      end

      # The frame flags of a head with +gvl_wait_ns+ (nil: not measured) added to +flags+.
      def self.flags(flags, gvl_wait_ns)
        gvl_wait_ns ? flags | GVL_WAIT : flags
      end

      # The frame type, flags and length (0 until the payload is in), then the fixed fields.
      FRAME_PREFIX_FORMAT = "NN#{PREFIX_FORMAT}".freeze # frozen: a Ractor slot reads it
      GVL_FRAME_PREFIX_FORMAT = "NN#{GVL_PREFIX_FORMAT}".freeze

      # Appends the whole frame (header, then the payload #payload builds) to the binary String +buffer+
      # without building the payload separately, and returns the buffer; called on HijackHead it appends a
      # HIJACK_HEAD. GVL_WAIT is added to +flags+ when +gvl_wait_ns+ is given. Raises ProtocolError when the
      # payload exceeds Frame::MAX_PAYLOAD. The worker's hot path.
      def self.append_frame(buffer, flags, status, app_called_ns, app_returned_ns, body_read_ns, pairs,
                            gvl_wait_ns = nil)
        start = buffer.bytesize
        if gvl_wait_ns
          [(self::TYPE << 24) | ((flags | GVL_WAIT) & Frame::FLAGS_MASK), 0, status, 0, app_called_ns,
           app_returned_ns, body_read_ns, gvl_wait_ns].pack(GVL_FRAME_PREFIX_FORMAT, buffer: buffer)
        else
          [(self::TYPE << 24) | (flags & Frame::FLAGS_MASK), 0, status, 0, app_called_ns, app_returned_ns,
           body_read_ns].pack(FRAME_PREFIX_FORMAT, buffer: buffer)
        end
        PairList::CODEC.append_pairs(buffer, pairs.to_a)
        length = buffer.bytesize - start - Frame::HEADER_SIZE
        raise ProtocolError, "payload of #{length} bytes exceeds #{Frame::MAX_PAYLOAD}" if length > Frame::MAX_PAYLOAD

        4.times { |i| buffer.setbyte(start + 4 + i, (length >> (24 - 8 * i)) & 0xFF) }
        buffer
      end

      def payload
        ResponseHead.payload(status, app_called_ns, app_returned_ns, body_read_ns, pairs, gvl_wait_ns)
      end

      # The whole frame: GVL_WAIT joins +flags+ when this head carries a GVL wait.
      def encode(flags = 0)
        Frame.encode(self.class::TYPE, payload, ResponseHead.flags(flags, gvl_wait_ns))
      end
    end
  end
end
