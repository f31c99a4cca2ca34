# frozen_string_literal: true

# REQUEST (0x10), host → worker: one dispatched request's timing points and its Rack env as a pair list.
# END_STREAM set means no BODY frames follow. The worker's hot path does not build this object: RackEnv
# reads the three timing fields at the offsets below and stores the pairs straight into the env with
# PairList.store; this typed view serves tests, tools and the corpus.
#
# +-------------------------------------------------------------------+
# |                  headers parsed, T2 (u64, ns)                     |
# +-------------------------------------------------------------------+
# |                  runnable, T2b (u64, ns)                          |
# +-------------------------------------------------------------------+
# |                  dispatched, T3 (u64, ns)                         |
# +-------------------------------------------------------------------+
# |                  env pair list ...                                |
# +-------------------------------------------------------------------+
#
# The timing fields are CLOCK_MONOTONIC readings of the host (docs/PROTOCOL.md, "Timing fields").

require_relative "payload"
require_relative "pair_list"

module PumaPlus
  module Wire
    class Request < Payload.struct(FrameType::REQUEST, :headers_parsed_ns, :runnable_ns, :dispatched_ns, :pairs)
      # T2, T2b, T3: three u64, big-endian.
      TIMES_FORMAT = "Q>Q>Q>"
      # The format of one timing field, for unpack1 with offset:.
      TIME_FORMAT = "Q>"
      # Byte offsets of T2, T2b and T3 in the payload, and of the pair list after them.
      HEADERS_PARSED_AT = 0
      RUNNABLE_AT = 8
      DISPATCHED_AT = 16
      PAIRS_AT = 24
      FIXED_SIZE = PAIRS_AT

      # Raises ProtocolError ("REQUEST: payload of ...") unless +payload+ holds at least the 24 bytes of
      # timing fields. For RackEnv, which reads a REQUEST without Wire.decode (that names the type itself).
      def self.check_size(payload)
        Payload.at_least(payload, FIXED_SIZE)
      rescue ProtocolError => e
        raise ProtocolError, "REQUEST: #{e.message}"
      end

      # Parses a REQUEST payload; raises ProtocolError when it is shorter than 24 bytes or its pair list
      # is truncated.
      def self.decode(payload)
        Payload.at_least(payload, FIXED_SIZE)
        new(headers_parsed_ns: payload.unpack1(TIME_FORMAT, offset: HEADERS_PARSED_AT),
            runnable_ns: payload.unpack1(TIME_FORMAT, offset: RUNNABLE_AT),
            dispatched_ns: payload.unpack1(TIME_FORMAT, offset: DISPATCHED_AT),
            pairs: PairList.decode(payload, PAIRS_AT))
      end

      def payload
        PairList.encode(pairs, [headers_parsed_ns, runnable_ns, dispatched_ns].pack(TIMES_FORMAT))
      end
    end
  end
end
