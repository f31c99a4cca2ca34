# frozen_string_literal: true

require "rack"
# Rack 2.2's Rack::Lint calls URI.parse without requiring uri; every other server has loaded it by then.
require "uri"

# Loads the Rack app from a rackup file (config.ru): in the shepherd with preload_app, otherwise in each
# worker right after fork. Rack 2's Rack::Builder.parse_file returns [app, options]; Rack 3's returns
# the app: both are accepted.
module PumaPlus
  module Rackup
    # The app built from the rackup file at +path+ (absolute). Raises whatever the file raises.
    def self.load(path)
      result = Rack::Builder.parse_file(path)
      app = result.is_a?(Array) ? result.first : result
      raise ArgumentError, "#{path} did not produce a Rack app (got #{app.inspect})" unless app.respond_to?(:call)

      app
    end
  end
end
