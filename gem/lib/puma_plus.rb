# frozen_string_literal: true

# puma-plus's Ruby side: the wire codec, the configuration, the shepherd that forks workers, and the
# worker whose threads dial in to the Java host and run the Rack app. `require "puma_plus"` loads it all;
# the puma-plus executable loads only what it needs to find and exec the Java host (launcher.rb).
require_relative "puma_plus/version"
require_relative "puma_plus/wire"
require_relative "puma_plus/configuration"
require_relative "puma_plus/worker"
require_relative "puma_plus/shepherd"
