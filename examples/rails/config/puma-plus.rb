# puma-plus configuration for the Rails example (docs/CONFIG.md). Two forked workers of one thread each:
# Debian's sqlite3 1.4 keeps the GVL inside its busy handler, so concurrent writers must be processes, not
# threads. The app is loaded once in the shepherd and shared copy-on-write; every worker opens its own
# database connection.
workers 2
threads 1, 1
preload_app!

before_fork do
  ActiveRecord::Base.connection_pool.disconnect!
end

on_worker_boot do
  ActiveRecord::Base.establish_connection
end
