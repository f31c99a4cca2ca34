#!/usr/bin/env ruby
# frozen_string_literal: true

# The fiber-server reference of the fiber benchmarks (bench/scenarios/fibers.scenario; issue 31): a Rack app
# served by socketry's async-http (Debian's ruby-async-http 0.59, the engine falcon stands on) in one
# process, one thread, one reactor, every request a fiber and no limit on how many run at once. It is what
# falcon does with `--count 1`, written here because Debian has async-http but not falcon: it turns each
# HTTP/1.1 request into a Rack env, calls the app in the request's own fiber, and writes the response back.
#
#   ruby bench/fibers/async_http_rack.rb --port PORT [--host 127.0.0.1] CONFIG_RU
#
# Only what the bench apps need of Rack: no hijack, no streaming request bodies (the body is read whole
# first), HTTP/1.1 only. Ends on TERM or INT.

require "optparse"
require "stringio"
require "rack"
require "rack/builder"
require "async"
require "async/http/server"
require "async/http/endpoint"
require "protocol/http/body/buffered"

module BenchFibers
  # A Protocol::HTTP middleware that calls a Rack app.
  class RackAdapter
    RACK_VERSION = [1, 3].freeze

    def initialize(app, host, port)
      @app = app
      @host = host
      @port = port.to_s
    end

    # Protocol::HTTP::Request -> Protocol::HTTP::Response.
    def call(request)
      status, headers, body = @app.call(env_for(request))
      Protocol::HTTP::Response[status, response_headers(headers), chunks(body)]
    end

    def close; end

    private

    def env_for(request)
      path, query = request.path.split("?", 2)
      env = {
        "REQUEST_METHOD" => request.method,
        "SCRIPT_NAME" => "",
        "PATH_INFO" => path,
        "QUERY_STRING" => query || "",
        "SERVER_NAME" => @host,
        "SERVER_PORT" => @port,
        "SERVER_PROTOCOL" => request.version || "HTTP/1.1",
        "rack.version" => RACK_VERSION,
        "rack.url_scheme" => "http",
        "rack.input" => StringIO.new((request.body&.join || +"").b),
        "rack.errors" => $stderr,
        "rack.multithread" => true,
        "rack.multiprocess" => false,
        "rack.run_once" => false
      }
      request.headers.each do |name, value|
        key = name.upcase.tr("-", "_")
        key = "HTTP_#{key}" unless key == "CONTENT_TYPE" || key == "CONTENT_LENGTH"
        env[key] = env.key?(key) ? "#{env[key]}, #{value}" : value.to_s
      end
      env["HTTP_HOST"] ||= request.authority if request.authority
      env
    end

    def response_headers(headers)
      headers.flat_map do |name, value|
        Array(value).flat_map { |v| v.to_s.split("\n") }.map { |v| [name.downcase, v] }
      end
    end

    def chunks(body)
      parts = []
      body.each { |part| parts << part }
      Protocol::HTTP::Body::Buffered.wrap(parts)
    ensure
      body.close if body.respond_to?(:close)
    end
  end
end

host = "127.0.0.1"
port = nil
OptionParser.new do |o|
  o.banner = "usage: #{$PROGRAM_NAME} --port PORT [--host HOST] CONFIG_RU"
  o.on("--port PORT", Integer) { |v| port = v }
  o.on("--host HOST") { |v| host = v }
end.parse!
rackup = ARGV.shift
abort "#{$PROGRAM_NAME}: --port and a config.ru are required" unless port && rackup

app = Rack::Builder.parse_file(rackup)
app = app.first if app.is_a?(Array) # Rack 2's parse_file returns [app, options]
Console.logger.warn! # the server's own per-connection notes would cost more than the requests
endpoint = Async::HTTP::Endpoint.parse("http://#{host}:#{port}", reuse_address: true)
$stdout.sync = true
Async do
  server = Async::HTTP::Server.new(BenchFibers::RackAdapter.new(app, host, port), endpoint)
  puts "async-http reference listening on http://#{host}:#{port}"
  server.run
end
