# The autoscaled server of bench/scenarios/elastic-rails.scenario: elastic.puma-plus.rb's sizing (1 to 8
# workers, each forked from the mold once the first worker has served 300 requests, two spares parked ahead
# of a scale-up) on the Rails example, with the example's own fork hooks: every process opens its own
# database connection (config/puma-plus.rb), the mold included.
preload_app!
fork_worker 300
spare_workers 2
autoscale min: 1, max: 8, target_queue_p95: "50ms"
decision_log ENV.fetch("DECISION_LOG", "/tmp/puma-plus-elastic-rails-decisions.jsonl")

before_fork { ActiveRecord::Base.connection_pool.disconnect! }
before_refork { ActiveRecord::Base.connection_pool.disconnect! }
on_worker_boot { ActiveRecord::Base.establish_connection }
