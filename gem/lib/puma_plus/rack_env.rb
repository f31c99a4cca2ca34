# frozen_string_literal: true

# Builds each request's Rack env in the worker, between reading the REQUEST frame and calling the app:
# dup a frozen prototype holding the non-string entries, store the host's pairs (the CGI variables and
# HTTP_* headers, already in final form), add the host's timing points as the puma_plus.* Integers of
# docs/RACK.md, set rack.input. No per-request string munging beyond slicing.

require "rack"
require_relative "version"
require_relative "wire/request"

module PumaPlus
  module RackEnv
    # T3 − T2b: how long the request sat runnable in the host's queue with no free slot (ns).
    QUEUE_TIME_NS = "puma_plus.queue_time_ns"
    # T2b − T2: how long the host waited for the body before the request became runnable (ns).
    BODY_WAIT_NS = "puma_plus.body_wait_ns"
    # T2b: when the request became runnable, a CLOCK_MONOTONIC reading in ns (comparable with
    # Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) in this process).
    RUNNABLE_AT_NS = "puma_plus.runnable_at_ns"
    # What kind of slot serves the request: THREAD, RACTOR or FIBER (docs/RACK.md).
    SLOT_KIND = "puma_plus.slot_kind"
    THREAD = "thread"
    RACTOR = "ractor"
    FIBER = "fiber"

    TIME_FORMAT = Wire::Request::TIME_FORMAT
    HEADERS_PARSED_AT = Wire::Request::HEADERS_PARSED_AT
    RUNNABLE_AT = Wire::Request::RUNNABLE_AT
    DISPATCHED_AT = Wire::Request::DISPATCHED_AT
    PAIRS_AT = Wire::Request::PAIRS_AT

    # The Rack spec the loaded rack follows: 3 for Rack 3.x, 2 for Rack 2.x. Decided once, from the
    # rack the process loaded (the app's, since the shepherd and the app share one load path).
    SPEC = Gem::Version.new(Rack.release).segments.first >= 3 ? 3 : 2
    # rack.version for Rack 2 (Rack::VERSION), as a frozen copy a Ractor slot may read; nil for Rack 3.
    RACK_VERSION = (Ractor.make_shareable(Rack::VERSION.dup) if SPEC < 3)

    # Whether the loaded rack is Rack 3 or later (lower-case header names, Array header values,
    # streaming bodies, no rack.version).
    def self.rack3?
      SPEC >= 3
    end

    # The frozen env every request starts from. +multithread+ / +multiprocess+ describe the worker
    # process (slots > 1, workers > 1); +slot_kind+ is its slots' kind (THREAD, RACTOR or FIBER).
    def self.prototype(multithread:, multiprocess:, slot_kind: THREAD, errors: $stderr)
      prototype = {
        SLOT_KIND => slot_kind,
        "rack.errors" => errors,
        "rack.multithread" => multithread,
        "rack.multiprocess" => multiprocess,
        "rack.run_once" => false,
        "rack.hijack?" => false,
        "SCRIPT_NAME" => "",
        "SERVER_SOFTWARE" => "puma-plus #{PumaPlus::VERSION}"
      }
      # Rack 2 requires rack.version (an Array); Rack 3.1 dropped it from the spec and the constant.
      prototype["rack.version"] = RACK_VERSION unless rack3?
      prototype.freeze
    end

    # A new env from the REQUEST +payload+: +prototype+'s entries, then every pair (names interned as
    # frozen binary strings, values as fresh binary strings), then the timing keys (Integers, ns) computed
    # from T2, T2b and T3, then rack.input = +input+. The timing keys are set after the pairs, so the
    # host's pair list cannot override them. Raises Wire::ProtocolError for a payload shorter than its
    # timing fields or a truncated pair list, its message beginning with "REQUEST: " as Wire.decode's and
    # the host's do (docs/PROTOCOL.md, "Errors").
    def self.build(prototype, payload, input)
      Wire::Request.check_size(payload)
      env = begin
        Wire::PairList.store(payload, prototype.dup, PAIRS_AT)
      rescue Wire::ProtocolError => e
        raise Wire::ProtocolError, "REQUEST: #{e.message}"
      end
      headers_parsed = payload.unpack1(TIME_FORMAT, offset: HEADERS_PARSED_AT)
      runnable = payload.unpack1(TIME_FORMAT, offset: RUNNABLE_AT)
      env[QUEUE_TIME_NS] = payload.unpack1(TIME_FORMAT, offset: DISPATCHED_AT) - runnable
      env[BODY_WAIT_NS] = runnable - headers_parsed
      env[RUNNABLE_AT_NS] = runnable
      env["rack.input"] = input
      env
    end
  end
end
