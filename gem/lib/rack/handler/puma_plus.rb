# frozen_string_literal: true

# The Rack handler, so that `rackup -s puma_plus` and `rails server -u puma_plus` start puma-plus. The app
# those tools have already built in this process is not used: puma-plus loads the rackup file itself in
# forked workers (which are dialled in by the Java host), so the handler turns the tool's options into
# puma-plus flags and execs the puma-plus command in place of this process (same pid, so a pid file the
# tool wrote stays true).
#
# Registered the way puma registers its own: under Rackup::Handler when rackup (Rack 3's server tools) is
# loaded, which finds this file by the name `puma_plus`; else as Rack::Handler::PumaPlus, registered with
# Rack 2's Rack::Handler (Rack 3 alone has no handler registry: the module is defined, nothing more).

require "rack"
require "puma_plus/launcher"

module PumaPlus
  # What the handler does, whichever registry holds it.
  module RackHandler
    # Rack's handler options (Rack 2.2 Rack::Server, rackup 2, Rails) that mean something here.
    def valid_options
      {
        "Host=HOST" => "Hostname to listen on (default: localhost)",
        "Port=PORT" => "Port to listen on (default: 8080)",
        "Threads=MIN:MAX" => "min:max threads per worker (default 0:5)",
        "Workers=N" => "worker processes (default 0)"
      }
    end

    # Never returns: execs the Java host. +app+ is ignored (see above); +options+ as Rack::Server and
    # Rackup::Server pass them (:Host, :Port, :environment, :config, :Threads, :Workers).
    def run(_app, **options)
      argv = flags(options)
      yield self if block_given?
      gem_dir = ::File.expand_path("../../..", __dir__)
      command = ::PumaPlus::Launcher.new(gem_dir: gem_dir).command(argv)
      $stdout.flush
      $stderr.flush
      exec(*command)
    rescue ::PumaPlus::Launcher::Error => e
      warn "puma-plus: #{e.message}"
      exit 1
    end

    # The puma-plus argv for Rack's +options+: bind from :Host/:Port (only when the tool set them, so a
    # config file's binds are not overridden by defaults), environment, threads, workers, the rackup file.
    def flags(options)
      argv = []
      if options[:Port] || options[:Host]
        host = options[:Host].to_s
        host = "127.0.0.1" if host.empty? || host == "localhost"
        host = "[#{host}]" if host.include?(":") && !host.start_with?("[")
        argv += ["-b", "tcp://#{host}:#{options[:Port] || 9292}"]
      end
      argv += ["-e", options[:environment].to_s] if options[:environment]
      argv += ["-t", options[:Threads].to_s] if options[:Threads]
      argv += ["-w", options[:Workers].to_s] if options[:Workers]
      argv << ::File.expand_path(options[:config]) if options[:config].is_a?(String) && ::File.file?(options[:config])
      argv
    end
  end
end

if defined?(::Rackup::Handler)
  module Rackup
    module Handler
      module PumaPlus
        extend ::PumaPlus::RackHandler
      end
      register :puma_plus, PumaPlus
    end
  end
else
  require "rack/handler" if ::Rack.release < "3"
  module Rack
    module Handler
      module PumaPlus
        extend ::PumaPlus::RackHandler
      end
    end
  end
  ::Rack::Handler.register(:puma_plus, ::Rack::Handler::PumaPlus) if ::Rack.release < "3"
end
