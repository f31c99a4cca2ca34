# frozen_string_literal: true

# The puma directives the config file language (PumaPlus::DSL) accepts without an equivalent here, each
# with the reason it is ignored, and the report of one such directive that the shepherd logs at boot with
# its file and line (docs/CONFIG.md, "Puma names").

module PumaPlus
  class DSL
    # Puma directives (5.6 through 8) with no equivalent in puma-plus, each with the reason: accepted with
    # any arguments, ignored, and reported at boot with file and line (a Rails config/puma.rb must run
    # unchanged). Any other unknown name is an error. docs/CONFIG.md, "Puma names", says the same in a table.
    UNSUPPORTED = {
      max_fast_inline: "the host parses every request; no Ruby thread reads a socket",
      nakayoshi_fork: "no GC compaction runs before a fork (with fork_worker, a before_refork hook can run one in the mold)",
      wait_for_less_busy_worker: "there is no accept race: the host hands each request to an idle slot",
      extra_runtime_dependencies: "there is no prune_bundler", prune_bundler: "the shepherd is not re-exec'd",
      queue_requests: "the host always queues requests (one queue, docs/ARCHITECTURE.md)",
      out_of_band: "a slot is busy only while it runs a request; nothing runs between requests",
      raise_exception_on_sigterm: "the shepherd stops workers with TERM and their links drain; no exception",
      silence_single_worker_warning: "there is no such warning", silence_fork_callback_warning: "there is no such warning",
      early_hints: "103 Early Hints are always passed through when the app sends them",
      set_remote_address: "REMOTE_ADDR is the peer the host saw",
      clean_thread_locals: "slot threads serve one link each; their locals are not cleared",
      fiber_per_request: "each request runs on its slot's thread, never in a fiber of its own",
      log_formatter: "the log format is log_format (text or json)", custom_logger: "the log is the host's (log_format)",
      debug: "no low-level debugging output", shutdown_debug: "no thread dump at shutdown",
      drain_on_shutdown: "the host always drains its queue on a graceful stop",
      force_shutdown_after: "a stop waits shutdown_timeout, then answers 503",
      restart_command: "a hot restart spawns a new shepherd; there is no exec",
      worker_check_interval: "workers check in every min(worker_timeout / 4, 5) s",
      worker_culling_strategy: "TTOU retires the highest worker index",
      state_permission: "the state file has the umask's permissions",
      mutate_stdout_and_stderr_to_sync_on_write: "log lines are written whole",
      io_selector_backend: "the host's Netty event loops own the sockets", max_io_threads: "the host's Netty event loops own the sockets",
      directory: "start puma-plus in the app's directory (or use --dir)",
      load: "config files are -C, config/puma-plus.rb and config/puma.rb",
      app: "workers load the rackup file (config.ru); an app object from the config file is not used",
      rack_url_scheme: "rack.url_scheme is the listener's scheme", clear_binds!: "binds of a later file replace an earlier file's",
      set_default_host: "the default bind is tcp://0.0.0.0:9292",
      idle_timeout: "the host has no idle shutdown (only it sees requests, and it offers no such stop yet)",
      supported_http_methods: "the host passes every method to the app",
      max_keep_alive: "the host does not cap requests per keep-alive connection; persistent_timeout bounds idle ones",
      enable_keep_alives: "the host always keeps connections alive (persistent_timeout bounds idle ones)",
    }.freeze

    # One reported puma directive: { directive:, file:, line:, reason: }; +missing+ when the directive
    # exists here but what it names does not (a plugin that is not installed).
    Unsupported = Struct.new(:directive, :file, :line, :reason, :missing, keyword_init: true) do
      def to_s
        return "#{file}:#{line}: #{directive}: #{reason}; ignored" if missing

        "#{file}:#{line}: #{directive} is a puma directive with no equivalent in puma-plus (#{reason}); ignored"
      end
    end
  end
end
