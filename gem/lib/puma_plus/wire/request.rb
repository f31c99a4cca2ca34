# frozen_string_literal: true

# REQUEST (0x10), host → worker: one dispatched request's Rack env as a pair list. END_STREAM set means no
# BODY frames follow. The worker's hot path does not build this object: it stores the pairs straight into
# the env with PairList.each; this typed view serves tests, tools and the corpus.

require_relative "payload"
require_relative "pair_list"

module PumaPlus
  module Wire
    class Request < Struct.new(:pairs, keyword_init: true)
      include Payload
      TYPE = FrameType::REQUEST

      def self.decode(payload)
        new(pairs: PairList.decode(payload))
      end

      def payload
        PairList.encode(pairs)
      end
    end
  end
end
