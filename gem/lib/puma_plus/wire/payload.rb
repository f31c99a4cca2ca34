# frozen_string_literal: true

# What every typed payload class of the codec shares: how it becomes a whole frame, and the shape of the
# four frame types whose payload is nothing but bytes (CONFIG, BODY, RESPONSE_BODY, RESPONSE_ABORT).

require_relative "frame"

module PumaPlus
  module Wire
    module Payload
      # The whole frame's bytes: the header (the class's TYPE and +flags+), then #payload.
      def encode(flags = 0)
        Frame.encode(self.class::TYPE, payload, flags)
      end

      # A payload class for frame type +type+ whose payload is the bytes of its one field +field+.
      def self.bytes(type, field)
        Struct.new(field, keyword_init: true) do
          include Payload
          const_set(:TYPE, type)
          define_singleton_method(:decode) { |payload| new(field => payload) }
          define_method(:payload) { self[field].b }
        end
      end
    end
  end
end
