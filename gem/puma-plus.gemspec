# frozen_string_literal: true

# The puma-plus gem: the Ruby side (CLI, configuration, shepherd, worker, wire codec) plus the built Java
# host under vendor/java/ (written by `mvn package` / script/build), which the puma-plus executable execs.
require_relative "lib/puma_plus/version"

Gem::Specification.new do |spec|
  spec.name = "puma-plus"
  spec.version = PumaPlus::VERSION
  spec.summary = "A Rack app server with a Java (Netty) front end that measures and minimises request queue time"
  spec.description = <<~TEXT
    puma-plus runs Rack apps (Rails, Sinatra, plain Rack) behind a Java host that owns every client
    connection and a single request queue. Ruby worker threads dial in to the host over a unix socket;
    an idle worker connection is a free slot, and queue time is measured exactly, in one place.
  TEXT
  spec.authors = ["puma-plus contributors"]
  spec.required_ruby_version = ">= 3.1"

  spec.files = Dir["lib/**/*.rb", "ext/**/*.{rb,c}", "exe/*", "vendor/java/**/*", "puma-plus.gemspec", "Rakefile"]
               .select { |path| File.file?(path) }
  spec.bindir = "exe"
  spec.executables = ["puma-plus"]
  spec.require_paths = ["lib"]
  spec.extensions = ["ext/puma_plus/wire/native_codec/extconf.rb", "ext/puma_plus/worker/gvl_clock/extconf.rb"]

  spec.add_dependency "rack", ">= 2.2", "< 4"
  # Every library lib/ requires that is not a default gem of every Ruby from 3.1 on: logger and fiddle (the
  # worker's scheduling policy) leave the default gems in Ruby 3.5 (bundled gems then, unloadable under
  # Bundler unless declared). The others it requires (json, optparse, socket, uri, yaml, openssl, net/http,
  # securerandom, etc ...) stay default gems.
  spec.add_dependency "logger", ">= 1.5"
  spec.add_dependency "fiddle", ">= 1.1"
  # socketry's Async 1.x: the fiber scheduler of `fibers` slots (Worker::FiberReactor uses its 1.x reactor).
  spec.add_dependency "async", ">= 1.30", "< 2"
end
