# Rackup file for the Rails 7.2 example: `examples/rails72/bin/puma-plus` (Ruby 3.3, Rails 7.2's GEM_PATH).
require_relative "config/environment"

run Rails.application
