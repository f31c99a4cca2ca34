# Rackup file for the Sinatra example: `gem/exe/puma-plus examples/sinatra/config.ru`.
require_relative "app"

run SinatraExample
