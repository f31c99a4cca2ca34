# The statically provisioned servers of bench/scenarios/elastic-rails.scenario (puma-plus and puma alike):
# the Rails example preloaded, each worker opening its own database connection (config/puma-plus.rb).
preload_app!
before_fork { ActiveRecord::Base.connection_pool.disconnect! }
on_worker_boot { ActiveRecord::Base.establish_connection }
