# Rackup file for the Sinatra 4.1 example. Sinatra 4.1 and Rack 3.1 are not packaged for Debian bookworm:
# `RUBYLIB=$(script/rack3 | paste -sd:) gem/exe/puma-plus examples/sinatra4/config.ru` from the repository root.
require_relative "app"

run Sinatra4Example
