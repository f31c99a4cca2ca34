# Serves the directory named by FILES_ROOT with Rack::Files (no Lint): whole files leave as file bodies
# (to_path), which the host sends itself; range requests (206) are iterated by the worker.
require "rack"
require "rack/files"

run Rack::Files.new(ENV.fetch("FILES_ROOT"))
