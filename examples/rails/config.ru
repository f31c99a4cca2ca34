# Rackup file for the Rails example: `cd examples/rails && ../../gem/exe/puma-plus -C config/puma-plus.rb`.
require_relative "config/environment"

run Rails.application
