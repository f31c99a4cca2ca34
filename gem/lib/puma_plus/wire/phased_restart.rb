# frozen_string_literal: true

# PHASED_RESTART (0x06, host → shepherd, version 3): replace every worker process one at a time, each
# new one booted before the old one is told to drain (USR1, `puma-plus ctl phased-restart`). No payload.

require_relative "payload"

module PumaPlus
  module Wire
    class PhasedRestart
      include Payload
      TYPE = FrameType::PHASED_RESTART

      # Raises ProtocolError unless the payload is empty.
      def self.decode(payload)
        raise ProtocolError, "PHASED_RESTART payload of #{payload.bytesize} bytes, 0 required" unless payload.empty?

        new
      end

      def initialize(**_none); end

      def payload
        "".b
      end

      def to_h
        {}
      end

      def ==(other)
        other.is_a?(PhasedRestart)
      end
    end
  end
end
