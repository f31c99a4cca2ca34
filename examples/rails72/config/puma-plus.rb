# puma-plus configuration for the Rails 7.2 example (docs/CONFIG.md). Two forked workers of one thread each:
# the sqlite3 gem 1.4 keeps the GVL inside its busy handler, so concurrent writers must be processes, not
# threads. The app is loaded once in the shepherd and shared copy-on-write. No fork hooks: since Rails 7.1
# Active Record discards the connections a forked worker inherits (ActiveSupport::ForkTracker) and each
# worker opens its own on first use.
workers 2
threads 1, 1
preload_app!
