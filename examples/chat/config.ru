# Rackup file for the chat example: `gem/exe/puma-plus examples/chat/config.ru`, then open
# http://localhost:9292/ in two browser tabs.
require_relative "app"

run ChatExample
