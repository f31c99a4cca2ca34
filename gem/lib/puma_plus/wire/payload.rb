# frozen_string_literal: true

# What every typed payload class of the codec shares: how it becomes a whole frame, the length rules of
# docs/PROTOCOL.md ("Malformed payloads") with one wording each, and the shapes of the payloads that are
# nothing but bytes (CONFIG, BODY, RESPONSE_BODY, RESPONSE_ABORT) or nothing at all (PHASED_RESTART, HIJACK).
# Methods here are plain defs, never define_method, so a Ractor slot can call them.

require_relative "frame"

module PumaPlus
  module Wire
    module Payload
      # The whole frame's bytes: the header (the class's TYPE and +flags+), then #payload.
      def encode(flags = 0)
        Frame.encode(self.class::TYPE, payload, flags)
      end

      # A Struct class (keyword_init) with +fields+ for frame type +type+: the superclass of a typed payload.
      def self.struct(type, *fields)
        Struct.new(*fields, keyword_init: true) do
          include Payload
          const_set(:TYPE, type)
        end
      end

      # Raises ProtocolError unless +payload+ holds at least +minimum+ bytes.
      def self.at_least(payload, minimum)
        return if payload.bytesize >= minimum

        raise ProtocolError, "payload of #{payload.bytesize} bytes, at least #{minimum} required"
      end

      # Raises ProtocolError unless +payload+ holds exactly +length+ bytes.
      def self.exactly(payload, length)
        return if payload.bytesize == length

        raise ProtocolError, "payload of #{payload.bytesize} bytes, #{length} required"
      end

      # The payload class for frame type +type+ whose payload is the bytes of its one field +field+.
      def self.bytes(type, field)
        Class.new(struct(type, field)) do
          # Any bytes are well-formed.
          def self.decode(payload)
            new(members.first => payload)
          end

          def payload
            self[0].b
          end
        end
      end

      # The payload class for frame type +type+ that carries nothing.
      def self.empty(type)
        Class.new(Empty) { const_set(:TYPE, type) }
      end

      # A payload of no bytes: anything else is malformed.
      class Empty
        include Payload

        def self.decode(payload)
          Payload.exactly(payload, 0)
          new
        end

        def initialize(**_none); end

        def payload
          Frame::EMPTY
        end

        def to_h
          {}
        end

        def ==(other)
          other.instance_of?(self.class)
        end
      end
    end
  end
end
