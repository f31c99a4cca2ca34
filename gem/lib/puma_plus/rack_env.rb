# frozen_string_literal: true

# Builds each request's Rack env in the worker, between reading the REQUEST frame and calling the app:
# dup a frozen prototype holding the non-string entries, store the host's pairs (the CGI variables and
# HTTP_* headers, already in final form), set rack.input. No per-request string munging beyond slicing.

require "rack"
require_relative "version"
require_relative "wire/pair_list"

module PumaPlus
  module RackEnv
    # The frozen env every request starts from. +multithread+ / +multiprocess+ describe the worker
    # process (threads > 1, workers > 1).
    def self.prototype(multithread:, multiprocess:, errors: $stderr)
      {
        "rack.version" => Rack::VERSION,
        "rack.errors" => errors,
        "rack.multithread" => multithread,
        "rack.multiprocess" => multiprocess,
        "rack.run_once" => false,
        "rack.hijack?" => false,
        "SCRIPT_NAME" => "",
        "SERVER_SOFTWARE" => "puma-plus #{PumaPlus::VERSION}"
      }.freeze
    end

    # A new env: +prototype+'s entries, then every pair of the REQUEST +payload+ (names interned as
    # frozen binary strings, values as fresh binary strings), then rack.input = +input+. Raises
    # Wire::ProtocolError for a truncated pair list.
    def self.build(prototype, payload, input)
      env = Wire::PairList.store(payload, prototype.dup)
      env["rack.input"] = input
      env
    end
  end
end
