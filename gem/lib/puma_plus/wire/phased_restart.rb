# frozen_string_literal: true

# PHASED_RESTART (0x06, host → shepherd, version 3): replace every worker process one at a time, each
# new one booted before the old one is told to drain (USR1, `puma-plus ctl phased-restart`). No payload.

require_relative "payload"

module PumaPlus
  module Wire
    PhasedRestart = Payload.empty(FrameType::PHASED_RESTART)
  end
end
