# The elastic server of bench/scenarios/elastic.scenario (docs/CONTROL.md, docs/CONFIG.md "fork_worker and
# the mold"): starts at 1 worker and lets the controller size the pool between 1 and 8 worker processes, each
# forked from the mold once the first worker has served 300 requests (during the scenario's warm-up), with
# two spares parked ahead of a scale-up (docs/CONFIG.md "Spare workers"): 3 workers x 4 slots hold the
# step's ~9 busy slots.
preload_app!
fork_worker 300
spare_workers 2
autoscale min: 1, max: 8, target_queue_p95: "50ms"
decision_log ENV.fetch("DECISION_LOG", "/tmp/puma-plus-elastic-decisions.jsonl")
