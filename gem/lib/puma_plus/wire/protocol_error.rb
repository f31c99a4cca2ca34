# frozen_string_literal: true

# The one error the wire codec raises: a frame or payload that breaks docs/PROTOCOL.md. Whoever reads a
# link (worker thread, shepherd) rescues it, may send GOAWAY(1) and closes that link only.
module PumaPlus
  module Wire
    class ProtocolError < StandardError
    end
  end
end
