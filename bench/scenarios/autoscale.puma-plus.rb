# The autoscaling server of bench/scenarios/autoscale.scenario (docs/CONTROL.md): starts at the workers
# given on the command line (1) and lets the controller size the pool between 1 and 8 worker processes.
# The app is preloaded so that a new worker is a fork, not a second load of the app on a busy CPU.
preload_app!
autoscale min: 1, max: 8, target_queue_p95: "50ms"
decision_log ENV.fetch("DECISION_LOG", "/tmp/puma-plus-autoscale-decisions.jsonl")
