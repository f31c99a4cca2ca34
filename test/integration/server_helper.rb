# Runs the real puma-plus (Java host + Ruby shepherd + forked workers) for the integration tests, on port 0
# with a control listener, and tears it down by process group even when a test fails. Also the tests' base
# class: every test method runs under a timeout, and servers and temp dirs it made are cleaned up.
require "minitest/autorun"
require "json"
require "net/http"
require "tmpdir"
require "timeout"
require "raw_http"

class PumaPlusServer
  ROOT = File.expand_path("../..", __dir__)
  EXE = ENV.fetch("PUMA_PLUS_EXE", File.join(ROOT, "gem/exe/puma-plus")) # override: run the suite against another build
  BOOT_TIMEOUT = Integer(ENV.fetch("PUMA_PLUS_BOOT_TIMEOUT", "90")) # seconds to the "ready" line
  STOP_TIMEOUT = 15 # seconds after TERM before the process group is killed

  class BootError < StandardError; end

  # control_token: the token the control app requires: the one it generated and printed at boot, else the
  # one given with --control-token; nil when none is known (a config file's auth_token: pass it yourself).
  attr_reader :pid, :port, :control_port, :control_token, :slots, :exit_status

  # Every server ever started is stopped at exit too, so an interrupted or timed-out run (script/test's
  # `timeout` sends TERM) leaves no process group behind. Registered lazily: at_exit handlers run in
  # reverse order, and minitest's own runs the tests from one.
  def self.track(server)
    @all ||= begin
      at_exit { @all.each(&:stop) }
      []
    end
    @all << server
  end

  # `rackup`: path (relative to `chdir`) or nil to let the config decide. `workers`/`threads` become
  # `-w N -t N:N` when given; `config` becomes `-C PATH`. `env` is added to the server's environment.
  # `command` replaces the whole command line (e.g. script/run), keeping the rest of the contract.
  def initialize(rackup = nil, workers: nil, threads: nil, config: nil, chdir: ROOT, env: {}, args: [], command: nil)
    @custom_command = !command.nil?
    @command = command || begin
      line = [EXE, "-b", "tcp://127.0.0.1:0", "--control-url", "tcp://127.0.0.1:0"]
      line += ["-w", workers.to_s] if workers
      line += ["-t", "#{threads}:#{threads}"] if threads
      line += ["-C", config] if config
      line += args
      line << rackup if rackup
      line
    end
    @chdir = chdir
    @env = env
    @lines = []
    @lock = Mutex.new
    @changed = ConditionVariable.new
    @eof = false
  end

  # Spawns the server in its own process group and waits for `puma-plus: ready`. Raises BootError with
  # the server's output if it exits or times out first.
  def start
    PumaPlusServer.track(self)
    reader, writer = IO.pipe
    @pid = Process.spawn(@env, *@command, chdir: @chdir, pgroup: true, in: File::NULL, out: writer, err: writer)
    writer.close
    @reader = Thread.new do
      reader.each_line do |line|
        $stderr.print("[puma-plus #{@pid}] #{line}") if ENV["VERBOSE"]
        line = line.chomp.force_encoding(Encoding::UTF_8).scrub
        @lock.synchronize { @lines << line; @changed.broadcast }
      end
    ensure
      reader.close
      @lock.synchronize { @eof = true; @changed.broadcast }
    end

    ready = wait_for_line(/\Apuma-plus: ready, (\d+) slots?\z/, BOOT_TIMEOUT)
    raise BootError, "no ready line within #{BOOT_TIMEOUT}s from: #{@command.join(' ')}\n#{output_tail}" unless ready

    @slots = Integer(ready[1])
    listening = wait_for_line(%r{\Apuma-plus: listening on http://(?:127\.0\.0\.1|0\.0\.0\.0):(\d+)\z}, 0)
    control = wait_for_line(%r{\Apuma-plus: control app on http://127\.0\.0\.1:(\d+)\z}, 0)
    raise BootError, "ready, but no 'listening on' line:\n#{output_tail}" unless listening
    raise BootError, "ready, but no 'control app on' line:\n#{output_tail}" unless control || @custom_command

    @port = Integer(listening[1])
    @control_port = control && Integer(control[1])
    generated = wait_for_line(/\Apuma-plus: control app token: (\h{32}) \(generated at boot/, 0)
    given = @command.each_cons(2).find { |flag, _| flag == "--control-token" }&.last
    @control_token = generated ? generated[1] : given
    self
  rescue StandardError
    stop if @pid
    raise
  end

  # Sends `signal` (default TERM) and waits up to STOP_TIMEOUT for the host to exit, then KILLs whatever is
  # left of the process group. Returns the host's Process::Status (nil if it had to be killed). Idempotent.
  def stop(signal: "TERM", timeout: STOP_TIMEOUT)
    return @exit_status if @stopped || @pid.nil?

    @stopped = true
    begin
      Process.kill(signal, @pid) unless @exit_status
    rescue Errno::ESRCH
      nil
    end
    @exit_status ||= wait_for_exit(timeout)
    kill_group
    @exit_status ||= wait_for_exit(5)
    @reader&.join(5)
    @exit_status
  end

  # Waits up to `timeout` seconds for the host to exit by itself (signal it first); kills nothing.
  # Returns its Process::Status, or nil if it is still running.
  def wait(timeout)
    @exit_status ||= wait_for_exit(timeout)
  end

  # A new raw connection to the HTTP listener.
  def connect(timeout: 10)
    RawHttp::Connection.new("127.0.0.1", port, timeout: timeout)
  end

  # One request on a fresh connection; returns the RawHttp::Response.
  def request(method, target, headers = {}, body: nil, timeout: 10)
    connection = connect
    connection.write(RawHttp.request(method, target, headers, body: body, host: "127.0.0.1:#{port}"))
    connection.read_response(head: method == "HEAD", timeout: timeout)
  ensure
    connection&.close
  end

  # The control app's URI for +path+ (which may carry a query), with ?token= when a token is known.
  def control_uri(path)
    uri = URI("http://127.0.0.1:#{control_port}#{path}")
    uri.query = [uri.query, control_token && URI.encode_www_form(token: control_token)].compact.join("&")
    uri.query = nil if uri.query.empty?
    uri
  end

  # GET /stats from the control app, parsed.
  def stats
    JSON.parse(Net::HTTP.get(control_uri("/stats")))
  end

  def worker_pids
    stats.fetch("worker_status").map { |status| status.fetch("pid") }
  end

  # Every live process below the host (shepherd, workers), from /proc's parent links.
  def descendant_pids
    table = process_table
    found = []
    frontier = [@pid]
    until frontier.empty?
      parent = frontier.shift
      children = table.select { |_, (ppid, _, _)| ppid == parent }.keys
      found.concat(children)
      frontier.concat(children)
    end
    found
  end

  # Live (non-zombie) processes in the server's process group, the host included.
  def group_pids
    process_table.select { |_, (_, pgrp, state)| pgrp == @pid && state != "Z" }.keys
  end

  def self.alive?(pid)
    stat = File.read("/proc/#{pid}/stat")
    stat[stat.rindex(")") + 2] != "Z"
  rescue Errno::ENOENT, Errno::ESRCH
    false
  end

  # Everything the server printed so far.
  def output
    @lock.synchronize { @lines.join("\n") }
  end

  def output_tail(lines = 60)
    @lock.synchronize { @lines.last(lines).join("\n") }
  end

  # Waits up to +timeout+ seconds for an output line (any seen so far counts) matching +pattern+; returns
  # the MatchData, or nil.
  def await_line(pattern, timeout)
    wait_for_line(pattern, timeout)
  end

  private

  def wait_for_line(pattern, timeout)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    @lock.synchronize do
      loop do
        @lines.each do |line|
          match = pattern.match(line)
          return match if match
        end
        remaining = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
        return nil if @eof || remaining <= 0

        @changed.wait(@lock, remaining)
      end
    end
  end

  def wait_for_exit(timeout)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    loop do
      _, status = Process.wait2(@pid, Process::WNOHANG)
      return status if status
      return nil if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.05
    end
  rescue Errno::ECHILD
    nil
  end

  def kill_group
    Process.kill("KILL", -@pid)
  rescue Errno::ESRCH, Errno::EPERM
    nil
  end

  # pid => [ppid, pgrp, state] for every process in /proc.
  def process_table
    Dir.children("/proc").grep(/\A\d+\z/).each_with_object({}) do |entry, table|
      stat = File.read("/proc/#{entry}/stat")
      fields = stat[(stat.rindex(")") + 2)..].split(" ")
      table[Integer(entry)] = [Integer(fields[1]), Integer(fields[2]), fields[0]]
    rescue Errno::ENOENT, Errno::ESRCH
      next
    end
  end
end

# Base class of the integration tests. Each test method runs under TEST_TIMEOUT seconds (override the
# constant in a subclass); servers from `start_server` and dirs from `temp_dir` are removed in teardown,
# whatever the outcome.
class IntegrationTest < Minitest::Test
  TEST_TIMEOUT = 60
  APPS = File.join(__dir__, "apps")
  # Whether the workers this Ruby starts measure their threads' GVL wait (Ruby 3.2+'s instrumentation API;
  # on 3.1 it is unknown, and a thread bridge's gain with it).
  GVL_WAIT_MEASURED = Gem::Version.new(RUBY_VERSION) >= Gem::Version.new("3.2")

  class TestTimeout < StandardError; end

  # Wraps each test_* method as it is defined; the wrapper is compiled at the test's own file and line so
  # minitest's failure locations and rerun hints still point at the test.
  def self.method_added(name)
    super
    return if @wrapping || !name.to_s.start_with?("test_")

    begin
      @wrapping = true
      untimed = :"untimed_#{name}"
      alias_method untimed, name
      file, line = instance_method(untimed).source_location
      class_eval(<<~RUBY, file, line)
        def #{name}; run_with_timeout { #{untimed} }; end
      RUBY
    ensure
      @wrapping = false
    end
  end

  def run_with_timeout(&test)
    limit = self.class::TEST_TIMEOUT
    Timeout.timeout(limit, TestTimeout, "#{name} did not finish within #{limit}s", &test)
  end

  def teardown
    (@servers || []).reverse_each(&:stop)
    (@temp_dirs || []).each { |dir| FileUtils.rm_rf(dir) }
    super
  end

  # Starts a server (see PumaPlusServer#initialize) that teardown stops.
  def start_server(*args, **options)
    server = PumaPlusServer.new(*args, **options)
    (@servers ||= []) << server
    server.start
  end

  def temp_dir
    dir = Dir.mktmpdir("puma-plus-it-")
    (@temp_dirs ||= []) << dir
    dir
  end

  def app(name)
    File.join(APPS, name)
  end

  def monotonic
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # Polls the block until it returns truthy or `timeout` seconds pass; returns the last value.
  def eventually(timeout: 10, interval: 0.1)
    deadline = monotonic + timeout
    loop do
      value = yield
      return value if value || monotonic > deadline

      sleep interval
    end
  end

  # The full path of command +name+ on PATH, or nil.
  def self.find_executable(name)
    ENV.fetch("PATH", "").split(":").map { |dir| File.join(dir, name) }.find { |f| File.executable?(f) }
  end

  # Skips a test whose prerequisite is missing on a developer's machine; under CI (CI=true), where
  # script/setup installs everything, a missing prerequisite is a failure, never a silent skip.
  def skip_or_fail(why)
    flunk("#{why}; CI must run this test (script/setup provides what it needs)") if ENV["CI"] == "true"
    skip(why)
  end

  # A measurement worth seeing when the suite runs with VERBOSE=1 (latencies behind timing claims).
  def diag(message)
    $stderr.puts("  [#{self.class}##{name}] #{message}") if ENV["VERBOSE"]
  end

  # Appends the server's own lines (puma-plus: ...) and the tail of its output to a failure message.
  def with_log(server, message)
    return message unless server

    own = server.output.lines.grep(/\Apuma-plus: /).last(40).join
    "#{message}\n--- server lines ---\n#{own}--- server output (tail) ---\n#{server.output_tail}"
  end
end
