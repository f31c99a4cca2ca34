# frozen_string_literal: true

# The puma version whose plugin API puma-plus provides (plugins test Puma::Const::VERSION to pick puma 7's
# hook names over puma 6's; PumaPlus::PluginLauncher::Events answers to both).

module Puma
  module Const
    VERSION = PUMA_VERSION = "8.0.0"
  end
end
