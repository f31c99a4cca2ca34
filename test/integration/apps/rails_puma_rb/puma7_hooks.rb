# A config/puma.rb written for puma 7 (its hook names), with each hook leaving a marker line in
# $HOOK_LOG: rails_puma_rb_fixtures_test.rb checks that each ran in the right process at the right time.
log = ->(line) { File.open(ENV.fetch("HOOK_LOG"), "a") { |f| f.puts("#{line} #{Process.pid}") } }

workers 2
threads 1, 1
port ENV.fetch("PORT", 3000)

before_fork { log.("before_fork") }
before_worker_fork { |index| log.("before_worker_fork #{index}") }
after_worker_fork { |index| log.("after_worker_fork #{index}") }
before_worker_boot { |index| log.("before_worker_boot #{index}") }
after_worker_boot { |index| log.("after_worker_boot #{index}") }
before_worker_shutdown { |index| log.("before_worker_shutdown #{index}") }
after_worker_shutdown { |worker| log.("after_worker_shutdown #{worker.index}") }
after_booted { log.("after_booted") }
after_stopped { log.("after_stopped") }
before_restart { log.("before_restart") }
before_thread_start { log.("before_thread_start") }
before_thread_exit { log.("before_thread_exit") }
before_refork { log.("before_refork") }
after_refork { log.("after_refork") }
idle_timeout 600
max_keep_alive 100
enable_keep_alives true
supported_http_methods :any
activate_control_app "tcp://127.0.0.1:0", no_token: true
