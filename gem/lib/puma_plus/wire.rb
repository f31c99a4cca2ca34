# frozen_string_literal: true

# The Ruby codec of the worker link protocol (docs/PROTOCOL.md), used by the shepherd and every worker
# thread to talk to the host. Frame reads and writes raw frames; one class per frame type gives the
# typed payload view; Wire.decode maps one to the other.
require_relative "wire/protocol_error"
require_relative "wire/frame_type"
require_relative "wire/frame"
require_relative "wire/frame_reader"
require_relative "wire/unbuffered_reader"
require_relative "wire/pair_list"
require_relative "wire/hello"
require_relative "wire/welcome"
require_relative "wire/go_away"
require_relative "wire/config"
require_relative "wire/phased_restart"
require_relative "wire/worker_count"
require_relative "wire/extra_slots"
require_relative "wire/request"
require_relative "wire/body"
require_relative "wire/response_head"
require_relative "wire/response_body"
require_relative "wire/response_abort"
require_relative "wire/hijack"
require_relative "wire/early_hints"
require_relative "wire/response_file"
require_relative "wire/web_socket_command"

module PumaPlus
  module Wire
    # The protocol version this codec speaks (the Java codec's dev.pumaplus.wire.Protocol.VERSION).
    VERSION = 7
    # The oldest version it still speaks: a host that answers WELCOME(5) gets heads without GVL_WAIT.
    MIN_VERSION = 5
    # Frame types whose payload layout depends on the frame's flags (ResponseHead::GVL_WAIT).
    FLAGGED_LAYOUT = [FrameType::RESPONSE_HEAD, FrameType::HIJACK_HEAD].freeze

    # frame type code => payload class
    PAYLOADS = [Hello, Welcome, GoAway, Config, PhasedRestart, WorkerCount, ExtraSlots, Request, Body, ResponseHead,
                ResponseBody, ResponseAbort, Hijack, HijackHead, EarlyHints, ResponseFile,
                WebSocketCommand]
               .to_h { |klass| [klass::TYPE, klass] }.freeze

    # The typed payload of +frame+ (e.g. a Wire::Hello); raises ProtocolError when it is malformed, its
    # message beginning with the frame's type ("WORKER_COUNT: count 0, at least 1 required").
    def self.decode(frame)
      klass = PAYLOADS.fetch(frame.type)
      FLAGGED_LAYOUT.include?(frame.type) ? klass.decode(frame.payload, frame.flags) : klass.decode(frame.payload)
    rescue ProtocolError => e
      raise ProtocolError, "#{frame.type_name}: #{e.message}"
    end
  end
end
