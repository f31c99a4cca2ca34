# The bridged autoscaling server of bench/scenarios/autoscale.scenario (docs/CONTROL.md, "Bridging the dead
# time"): as autoscale.puma-plus.rb, but every slot is a Ractor (the bench app is Ractor-safe) and while
# forked workers boot, extra Ractor slots in the running worker carry the step.
preload_app!
ractors
autoscale min: 1, max: 8, target_queue_p95: "50ms", bridge: :ractor
decision_log ENV.fetch("DECISION_LOG", "/tmp/puma-plus-autoscale-bridge-decisions.jsonl")
