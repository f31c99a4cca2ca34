# A typical Rails 6.1 config/puma.rb (the generator's, with workers and preload turned on as production
# apps do), kept as Rails writes it: puma-plus runs it unchanged, puma's tmp_restart plugin included.
# `../../gem/exe/puma-plus -C config/puma.rb`, or plain `../../gem/exe/puma-plus` (config/puma.rb is read).
max_threads_count = ENV.fetch("RAILS_MAX_THREADS") { 5 }
min_threads_count = ENV.fetch("RAILS_MIN_THREADS") { max_threads_count }
threads min_threads_count, max_threads_count

worker_timeout 3600 if ENV.fetch("RAILS_ENV", "development") == "development"

port ENV.fetch("PORT") { 3000 }

environment ENV.fetch("RAILS_ENV") { "development" }

pidfile ENV.fetch("PIDFILE") { "tmp/pids/server.pid" }

workers ENV.fetch("WEB_CONCURRENCY") { 2 }

preload_app!

on_worker_boot do
  ActiveRecord::Base.establish_connection
end

plugin :tmp_restart
