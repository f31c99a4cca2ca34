# frozen_string_literal: true

# Resolution order (flags > config file > environment > defaults) and the CONFIG frame's JSON.

require "test_helper"
require "tmpdir"
require "json"
require "puma_plus/configuration"

class PumaPlus::ConfigurationTest < PumaPlus::TestCase
  def setup
    @dir = Dir.mktmpdir("puma-plus-config")
    File.write(File.join(@dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def resolve(argv = [], env: {}, file: nil)
    if file
      FileUtils.mkdir_p(File.join(@dir, "config"))
      File.write(File.join(@dir, "config", "puma-plus.rb"), file)
    end
    PumaPlus::Configuration.resolve(argv, env: env, cwd: @dir)
  end

  def test_defaults_apply_when_nothing_is_set
    config = resolve
    assert_equal({ "binds" => ["tcp://0.0.0.0:9292"], "bind_to_activated_sockets" => false, "workers" => 1, "threads" => 5,
                   "slot_kind" => "thread",
                   "rackup" => File.join(@dir, "config.ru"), "environment" => "development",
                   "preload_app" => false, "control_url" => nil, "control_token" => nil, "control_no_token" => false,
                   "persistent_timeout" => 20, "first_data_timeout" => 30, "write_timeout" => 10,
                   "header_timeout" => 10, "max_connections" => nil, "max_pipelined_requests" => 16,
                   "http_content_length_limit" => nil, "worker_boot_timeout" => 60, "shutdown_timeout" => 30,
                   "log_requests" => false, "server_timing" => false, "worker_timeout" => 60,
                   "worker_shutdown_timeout" => 30, "pidfile" => nil, "state_path" => nil, "stdout_path" => nil,
                   "stderr_path" => nil, "redirect_append" => false, "tag" => nil, "quiet" => false,
                   "log_format" => "text",
                   "autoscale" => false, "autoscale_min" => 1, "autoscale_max" => 8,
                   "autoscale_target_queue_p95_ms" => 50.0, "autoscale_actuator" => "fork",
                   "autoscale_bridge" => nil, "ractors" => false, "decision_log" => nil,
                   "client_timeout" => 10, "shed_wait_limit_ms" => 2500.0, "health_check_path" => "/health",
                   "health_check_answer" => "app", "metrics_url" => nil, "controller_jar_dir" => nil,
                   "websocket_max_message" => 1_048_576, "websocket_outbound_limit" => 1_048_576,
                   "websocket_ping_interval" => 30, "websocket_max_connections" => 10_000,
                   "webtransport_sessions_per_connection" => 16, "webtransport_max_sessions" => 10_000,
                   "webtransport_streams_per_session" => 64, "webtransport_max_message" => 1_048_576,
                   "webtransport_outbound_limit" => 1_048_576,
                   "bundles" => ["protocol-h2", "protocol-h1"] },
                 config.to_h)
  end

  def test_config_json_has_every_documented_key_even_when_null
    keys = JSON.parse(resolve.to_json).keys
    assert_equal %w[binds bind_to_activated_sockets workers threads slot_kind rackup environment preload_app control_url control_token
                    control_no_token metrics_url controller_jar_dir
                    persistent_timeout first_data_timeout write_timeout header_timeout max_connections
                    max_pipelined_requests http_content_length_limit
                    worker_boot_timeout shutdown_timeout log_requests server_timing worker_timeout
                    worker_shutdown_timeout pidfile state_path stdout_path stderr_path redirect_append tag quiet
                    log_format bundles
                    autoscale autoscale_min autoscale_max autoscale_target_queue_p95_ms autoscale_actuator
                    autoscale_bridge ractors decision_log client_timeout shed_wait_limit_ms health_check_path health_check_answer
                    websocket_max_message websocket_outbound_limit websocket_ping_interval
                    websocket_max_connections webtransport_sessions_per_connection webtransport_max_sessions
                    webtransport_streams_per_session webtransport_max_message webtransport_outbound_limit].sort,
                 keys.sort
  end

  def test_log_requests_and_server_timing_are_false_booleans_in_the_config_json_by_default
    json = JSON.parse(resolve.to_json)
    assert_equal [false, false], json.values_at("log_requests", "server_timing")
  end

  def test_log_requests_and_server_timing_from_the_file_reach_the_config_json
    json = JSON.parse(resolve(file: "log_requests
server_timing true
").to_json)
    assert_equal [true, true], json.values_at("log_requests", "server_timing")
    json = JSON.parse(resolve(file: "log_requests false
server_timing false
").to_json)
    assert_equal [false, false], json.values_at("log_requests", "server_timing")
  end

  def test_log_requests_flag_beats_the_file
    config = resolve(%w[--log-requests], file: "log_requests false
")
    assert_equal [true, true], [config.log_requests?, config.to_h["log_requests"]]
  end

  def test_environment_beats_defaults
    config = resolve(env: { "PORT" => "4000", "WEB_CONCURRENCY" => "3", "RAILS_MAX_THREADS" => "7",
                            "RACK_ENV" => "staging" })
    assert_equal [["tcp://0.0.0.0:4000"], 3, 7, "staging"],
                 [config.binds, config.workers, config.threads, config.environment]
  end

  def test_puma_max_threads_beats_rails_max_threads_and_rack_env_beats_rails_env
    config = resolve(env: { "PUMA_MAX_THREADS" => "9", "RAILS_MAX_THREADS" => "2", "RACK_ENV" => "a", "RAILS_ENV" => "b" })
    assert_equal [9, "a"], [config.threads, config.environment]
    assert_equal "b", resolve(env: { "RAILS_ENV" => "b" }).environment
  end

  def test_config_file_beats_environment
    config = resolve(env: { "PORT" => "4000", "WEB_CONCURRENCY" => "3", "RAILS_MAX_THREADS" => "7", "RACK_ENV" => "staging" },
                     file: "port 5000\nworkers 2\nthreads 1, 4\nenvironment 'production'\n")
    assert_equal [["tcp://0.0.0.0:5000"], 2, 4, "production"],
                 [config.binds, config.workers, config.threads, config.environment]
  end

  def test_flags_beat_config_file
    config = resolve(%w[-p 6000 -w 4 -t 2:8 -e test --preload app.ru],
                     file: "port 5000\nworkers 2\nthreads 1, 4\nenvironment 'production'\nrackup 'other.ru'\n")
    assert_equal [["tcp://0.0.0.0:6000"], 4, 8, "test", true, File.join(@dir, "app.ru")],
                 [config.binds, config.workers, config.threads, config.environment, config.preload_app?, config.rackup]
  end

  def test_bind_and_port_flags_accumulate_in_order
    config = resolve(%w[-b tcp://127.0.0.1:3000 -p 3001 --bind tcp://[::1]:3002])
    assert_equal ["tcp://127.0.0.1:3000", "tcp://0.0.0.0:3001", "tcp://[::1]:3002"], config.binds
  end

  def test_unix_binds_keep_pumas_parameters_and_a_relative_socket_file_becomes_the_start_directorys
    config = resolve(%w[-b unix:///run/app.sock?umask=0111 -b unix://tmp/app%20b.sock?mode=0660&backlog=64])
    assert_equal ["unix:///run/app.sock?umask=0111", "unix://#{@dir}/tmp/app b.sock?mode=0660&backlog=64"], config.binds
  end

  def test_bind_to_activated_sockets_flag_takes_only_and_leaves_a_following_rackup_file_alone
    assert_equal [true, File.join(@dir, "app.ru")],
                 resolve(%w[--bind-to-activated-sockets app.ru]).then { |c| [c.bind_to_activated_sockets, c.rackup] }
    assert_equal ["only", File.join(@dir, "app.ru")],
                 resolve(%w[--bind-to-activated-sockets only app.ru]).then { |c| [c.bind_to_activated_sockets, c.rackup] }
    assert_equal "only", resolve(file: "bind_to_activated_sockets :only\n").to_h["bind_to_activated_sockets"]
    assert_equal true, resolve(file: "bind_to_activated_sockets\n").to_h["bind_to_activated_sockets"]
  end

  def test_no_token_on_a_loopback_control_url_sends_no_token_and_says_so
    %w[127.0.0.1 127.3.2.1 localhost [::1]].each do |host|
      h = resolve(file: %(activate_control_app "tcp://#{host}:0", no_token: true\n)).to_h
      assert_equal [nil, true], h.values_at("control_token", "control_no_token"), host
    end
    h = resolve(%w[--control-url tcp://127.0.0.1:0 --control-token none]).to_h
    assert_equal [nil, true], h.values_at("control_token", "control_no_token"), "puma's --control-token none"
  end

  def test_no_token_on_a_non_loopback_control_url_is_a_config_error_naming_file_line_and_directive
    error = assert_raises(PumaPlus::ConfigError) do
      resolve(file: %(workers 2\nactivate_control_app "tcp://0.0.0.0:9293", no_token: true\n))
    end
    assert_match %r{\A\S*config/puma-plus\.rb:2: activate_control_app no_token: true is allowed only on a loopback address}, error.message
    assert_includes error.message, "tcp://0.0.0.0:9293"
    error = assert_raises(PumaPlus::ConfigError) { resolve(%w[--control-url tcp://10.1.2.3:9293 --control-token none]) }
    assert_match(/\Aflag --control-token: .*no_token/, error.message)
  end

  def test_without_auth_token_the_host_is_left_to_generate_one
    h = resolve(file: %(activate_control_app "tcp://0.0.0.0:9293"\n)).to_h
    assert_equal ["tcp://0.0.0.0:9293", nil, false], h.values_at("control_url", "control_token", "control_no_token")
  end

  def test_metrics_url_and_controller_jar_dir_reach_the_config_frame
    h = resolve(%w[--metrics-url tcp://0.0.0.0:0], file: %(controller_jar_dir "jars"\n)).to_h
    assert_equal ["tcp://0.0.0.0:0", File.join(@dir, "jars")], h.values_at("metrics_url", "controller_jar_dir")
    assert_raises(PumaPlus::ConfigError) { resolve(%w[--metrics-url unix:///tmp/m.sock]) }
  end

  def test_control_app_from_file_and_token_from_flag
    config = resolve(%w[--control-token flagtoken],
                     file: %(activate_control_app "tcp://127.0.0.1:0", auth_token: "filetoken"\n))
    assert_equal ["tcp://127.0.0.1:0", "flagtoken"], [config.control_url, config.control_token]
  end

  def test_workers_zero_still_forks_one_worker
    config = resolve(%w[-w 0])
    assert_equal [0, 1], [config.workers, config.worker_processes]
    assert_equal 1, config.to_h["workers"]
  end

  def test_default_config_file_is_used_only_when_it_exists
    assert_equal [], resolve.config_files
    assert_equal ["config/puma-plus.rb"], resolve(file: "workers 3\n").config_files
  end

  def test_explicit_config_file_that_does_not_exist_is_an_error
    error = assert_raises(PumaPlus::ConfigError) { resolve(%w[-C nope.rb]) }
    assert_equal "config file not found: nope.rb", error.message
  end

  def test_missing_rackup_is_a_clear_error
    error = assert_raises(PumaPlus::ConfigError) { resolve(%w[missing.ru]).check_rackup! }
    assert_equal "rackup file not found: #{File.join(@dir, 'missing.ru')}", error.message
  end

  def test_rackup_is_resolved_to_an_absolute_path
    assert_equal File.join(@dir, "config.ru"), resolve(file: "rackup 'config.ru'\n").check_rackup!.rackup
  end

  def test_bad_environment_variable_is_named_in_the_error
    error = assert_raises(PumaPlus::ConfigError) { resolve(env: { "WEB_CONCURRENCY" => "many" }) }
    assert_equal 'WEB_CONCURRENCY: expected an integer >= 0, got "many"', error.message
  end

  def test_empty_environment_variables_count_as_unset
    assert_equal 5, resolve(env: { "RAILS_MAX_THREADS" => "", "PORT" => " " }).threads
  end

  def test_hooks_come_from_the_file
    config = resolve(file: "before_fork { :bf }\non_worker_boot { |i| i }\n")
    assert_equal [:bf], config.before_fork_hooks.map(&:call)
    assert_equal [3], config.on_worker_boot_hooks.map { |hook| hook.call(3) }
  end

  def test_timeouts_and_content_length_limit_come_from_the_file
    config = resolve(file: "persistent_timeout 75\nfirst_data_timeout 10\nhttp_content_length_limit 10_000_000\n" \
                           "worker_boot_timeout 120\nshutdown_timeout 2.5\nwrite_timeout 30\n")
    assert_equal [75, 10, 10_000_000, 120, 3, 30], # 2.5 s rounds up to whole seconds
                 [config.persistent_timeout, config.first_data_timeout, config.http_content_length_limit,
                  config.worker_boot_timeout, config.shutdown_timeout, config.write_timeout]
  end

  def test_connection_limits_reach_the_config_frame_from_the_file
    sent = JSON.parse(resolve(file: "header_timeout 2.5\nmax_connections 300\nmax_pipelined_requests 0\n").to_json)
    assert_equal [3, 300, 0], sent.values_at("header_timeout", "max_connections", "max_pipelined_requests")
  end

  def test_webtransport_limits_reach_the_config_frame_from_the_file_apart_from_the_websocket_ones
    sent = JSON.parse(resolve(file: "websocket_max_message 10\nwebsocket_max_connections 5\n" \
                                    "webtransport_sessions_per_connection 2\nwebtransport_max_sessions 3\n" \
                                    "webtransport_streams_per_session 4\nwebtransport_max_message 1_000\n" \
                                    "webtransport_outbound_limit 5_000\n").to_json)
    assert_equal [2, 3, 4, 1000, 5000, 10, 5],
                 sent.values_at("webtransport_sessions_per_connection", "webtransport_max_sessions",
                                "webtransport_streams_per_session", "webtransport_max_message",
                                "webtransport_outbound_limit", "websocket_max_message", "websocket_max_connections")
    only_websocket = JSON.parse(resolve(file: "websocket_max_message 10\nwebsocket_outbound_limit 20\n").to_json)
    assert_equal [1_048_576, 1_048_576], only_websocket.values_at("webtransport_max_message", "webtransport_outbound_limit")
  end

  def test_max_connections_must_be_a_positive_integer
    error = assert_raises(PumaPlus::ConfigError) { resolve(file: "max_connections 0\n") }
    assert_match(/max_connections: expected an integer >= 1, got 0/, error.message)
  end

  def test_write_timeout_defaults_to_ten_seconds_and_reaches_the_config_frame
    assert_equal 10, resolve.write_timeout
    assert_equal 10, JSON.parse(resolve.to_json).fetch("write_timeout")
    assert_equal 30, JSON.parse(resolve(file: "write_timeout 30\n").to_json).fetch("write_timeout")
  end

  def test_each_value_names_its_source_flag_beats_file_beats_env_beats_default
    config = resolve(%w[-w 3], env: { "WEB_CONCURRENCY" => "2", "RAILS_MAX_THREADS" => "4", "PORT" => "7000" },
                     file: "workers 5\nport 8000\n")
    assert_equal [3, "flag --workers"], [config.workers, config.source(:workers)]
    assert_equal [["tcp://0.0.0.0:8000"], "#{@dir}/config/puma-plus.rb:2"], [config.binds, config.source(:binds)]
    assert_equal [4, "env RAILS_MAX_THREADS"], [config.threads, config.source(:threads)]
    assert_equal %w[development default], [config.environment, config.source(:environment)]
  end

  def test_paths_are_absolute_against_the_working_directory
    config = resolve(%w[--pidfile tmp/p.pid], file: "state_path 'tmp/s.state'\n")
    assert_equal [File.join(@dir, "tmp/p.pid"), File.join(@dir, "tmp/s.state")], [config.pidfile, config.state_path]
  end

  def test_quiet_silences_log_requests_in_the_config_frame
    assert_equal [false, true], resolve(%w[--log-requests -q]).to_h.values_at("log_requests", "quiet")
  end

  def test_unsupported_puma_directives_reach_the_configuration
    config = resolve(file: "nakayoshi_fork\n")
    assert_equal ["#{@dir}/config/puma-plus.rb:1: nakayoshi_fork is a puma directive with no equivalent in puma-plus " \
                  "(no GC compaction runs before a fork (with fork_worker, a before_refork hook can run one in the mold)); " \
                  "ignored"],
                 config.unsupported.map(&:to_s)
  end

  def test_autoscale_adds_the_controller_and_actuator_bundles_and_resolves_its_bounds
    config = resolve(file: <<~RUBY)
      autoscale min: 2, max: 12, target_queue_p95: "25ms"
      decision_log "log/decisions.jsonl"
    RUBY
    h = config.to_h
    assert_equal [true, 2, 12, 25.0], h.values_at("autoscale", "autoscale_min", "autoscale_max", "autoscale_target_queue_p95_ms")
    assert_equal %w[protocol-h2 protocol-h1 actuator-fork controller], h["bundles"]
    assert_equal File.join(@dir, "log/decisions.jsonl"), h["decision_log"]
  end

  # ---- fibers (docs/CONFIG.md, "fibers") ----

  def test_fibers_from_the_file_set_the_slots_per_worker_the_host_is_told_in_place_of_threads
    config = resolve(file: "threads 2, 3\nfibers 50\n")
    assert_equal [50, 50], [config.slots_per_worker, config.to_h["threads"]]
    assert_match(%r{config/puma-plus\.rb:2\z}, config.source(:fibers))
    assert_equal 3, resolve(file: "threads 2, 3\n").to_h["threads"]
  end

  def test_fibers_tell_the_host_their_slot_kind_and_load_the_controller_for_its_concurrency_limit
    h = resolve(file: "fibers 40\n").to_h
    assert_equal "fiber", h["slot_kind"]
    assert_equal %w[protocol-h2 protocol-h1 controller], h["bundles"]
    h = resolve(file: "fibers 40\nautoscale\n").to_h
    assert_equal %w[protocol-h2 protocol-h1 actuator-fork controller], h["bundles"], "loaded once"
    assert_equal "ractor", resolve(file: "ractors\n").to_h["slot_kind"]
  end

  def test_the_fibers_flag_beats_the_file
    config = resolve(["--fibers", "8"], file: "fibers 50\n")
    assert_equal [8, "flag --fibers"], [config.fibers, config.source(:fibers)]
  end

  def test_a_bad_fibers_value_is_refused_naming_the_file_line_and_the_directive
    error = assert_raises(PumaPlus::ConfigError) { resolve(file: "workers 2\nfibers 0\n") }
    assert_match(%r{config/puma-plus\.rb:2: fibers: expected an integer >= 1, got 0}, error.message)
    error = assert_raises(PumaPlus::ConfigError) { resolve(["--fibers", "many"]) }
    assert_match(/--fibers: expected an integer >= 1, got "many"/, error.message)
  end

  def test_fibers_with_ractors_is_refused_naming_where_each_came_from
    error = assert_raises(PumaPlus::ConfigError) { resolve(["--ractors"], file: "fibers 10\n") }
    assert_match(%r{config/puma-plus\.rb:1: fibers: cannot be combined with `ractors` \(flag --ractors\)}, error.message)
  end

  def test_a_ractor_bridge_adds_actuator_ractor_after_the_fork_actuator_and_the_controller
    h = resolve(file: "ractors\nautoscale bridge: :ractor\n").to_h
    assert_equal [true, "ractor"], h.values_at("ractors", "autoscale_bridge")
    assert_equal %w[protocol-h2 protocol-h1 actuator-fork controller actuator-ractor], h["bundles"]
  end

  def test_a_thread_bridge_adds_actuator_thread_and_needs_no_ractors
    h = resolve(file: "autoscale bridge: :thread\n").to_h
    assert_equal [false, "thread"], h.values_at("ractors", "autoscale_bridge")
    assert_equal %w[protocol-h2 protocol-h1 actuator-fork controller actuator-thread], h["bundles"]
  end

  def test_a_bridge_without_autoscale_is_sent_as_null_and_loads_no_actuator
    h = resolve(file: "autoscale false, bridge: :thread\n").to_h
    assert_nil h["autoscale_bridge"]
    assert_equal %w[protocol-h2 protocol-h1], h["bundles"]
  end

  def test_a_ractor_bridge_without_ractors_is_refused_naming_the_file_line_and_the_directive
    error = assert_raises(PumaPlus::ConfigError) { resolve(file: "workers 2\nautoscale bridge: :ractor\n") }
    assert_match(%r{config/puma-plus\.rb:2: autoscale bridge: :ractor needs `ractors`}, error.message)
  end

  def test_the_ractors_flag_satisfies_a_ractor_bridge_from_the_file
    config = resolve(["--ractors"], file: "autoscale bridge: :ractor\n")
    assert config.ractors?
    assert_equal "flag --ractors", config.source(:ractors)
  end

  def test_an_unknown_bridge_is_refused_with_its_line
    error = assert_raises(PumaPlus::ConfigError) { resolve(file: "\nautoscale bridge: :fork\n") }
    assert_match(%r{puma-plus\.rb:2: autoscale bridge: expected :ractor or :thread, got :fork}, error.message)
  end

  def test_autoscale_min_above_max_is_refused
    error = assert_raises(PumaPlus::ConfigError) { resolve(file: "autoscale min: 5, max: 2\n") }
    assert_match(/autoscale: min 5 is greater than max 2/, error.message)
  end

  def test_shed_limit_defaults_to_a_quarter_of_the_client_timeout_and_false_switches_it_off
    assert_equal 7500.0, resolve(file: "client_timeout 30\n").to_h["shed_wait_limit_ms"]
    assert_equal 400.0, resolve(file: "shed_wait_limit \"400ms\"\n").to_h["shed_wait_limit_ms"]
    assert_nil resolve(file: "shed_wait_limit false\n").to_h["shed_wait_limit_ms"]
  end

  def test_health_check_path_can_be_answered_by_the_host_or_removed
    h = resolve(file: "health_check_path \"/up\", answer: :host\n").to_h
    assert_equal ["/up", "host"], h.values_at("health_check_path", "health_check_answer")
    assert_nil resolve(file: "health_check_path false\n").to_h["health_check_path"]
    error = assert_raises(PumaPlus::ConfigError) { resolve(file: "health_check_path \"up\"\n") }
    assert_match(/health_check_path: expected a path starting with/, error.message)
  end
end
