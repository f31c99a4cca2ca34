# frozen_string_literal: true

# The frame type codes of docs/PROTOCOL.md ("Frame types") and their names as the golden corpus spells
# them. Used by the frame reader to reject unknown types before reading a payload.
module PumaPlus
  module Wire
    module FrameType
      HELLO          = 0x01
      WELCOME        = 0x02
      GOAWAY         = 0x03
      CONFIG         = 0x04
      PHASED_RESTART = 0x06 # version 3
      WORKER_COUNT   = 0x07 # version 3
      EXTRA_SLOTS    = 0x08 # version 3
      REQUEST        = 0x10
      BODY           = 0x11
      RESPONSE_HEAD  = 0x20
      RESPONSE_BODY  = 0x21
      RESPONSE_ABORT = 0x22
      HIJACK         = 0x23
      HIJACK_HEAD    = 0x24
      EARLY_HINTS    = 0x25
      RESPONSE_FILE  = 0x26
      WS_COMMAND     = 0x30 # version 4

      # code => name, e.g. 0x10 => "REQUEST"
      NAMES = Ractor.make_shareable(constants.to_h { |name| [const_get(name), name.to_s] })
      # name => code
      CODES = Ractor.make_shareable(NAMES.invert)

      # Whether +code+ is a type this protocol version defines.
      def self.known?(code)
        NAMES.key?(code)
      end

      # The corpus name of +code+, e.g. "RESPONSE_HEAD"; raises ProtocolError for an unknown code.
      def self.name_of(code)
        NAMES.fetch(code) { raise ProtocolError, format("0x%02x: unknown frame type", code) }
      end

      # The code of the type called +name+; raises ArgumentError for an unknown name.
      def self.code_of(name)
        CODES.fetch(name.to_s) { raise ArgumentError, "unknown frame type #{name.inspect}" }
      end
    end
  end
end
