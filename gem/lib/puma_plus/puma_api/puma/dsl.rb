# frozen_string_literal: true

# Puma's config DSL class is puma-plus's: a plugin that adds a directive (`class Puma::DSL; def x ...`) adds
# it to PumaPlus::DSL, and what it records in @options reaches the plugin as launcher.options.

require_relative "../../dsl"

module Puma
  DSL = PumaPlus::DSL
end
