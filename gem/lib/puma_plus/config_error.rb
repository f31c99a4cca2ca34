# frozen_string_literal: true

# A configuration that cannot be used: a bad flag, an unknown directive or bad value in the config file
# (the message names file:line and the directive), a bad environment variable, a missing rackup file.
# The shepherd prints the message and exits 1 before sending CONFIG, so the host opens no listener.
module PumaPlus
  class ConfigError < StandardError
  end
end
