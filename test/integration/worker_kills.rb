# Chaos at station "worker" of the request's path: steady load (LoadLoop against the probe app, which logs
# every request it starts with its pid) while a random worker process is SIGKILLed every few seconds and
# the shepherd replaces it. Afterwards every request is held to what the kill may cost: a 502 only for a
# request in flight on the killed worker, at most one per slot of it. A request the host gave to a link of
# the dead worker that it had not yet seen close never reached the worker and goes to another link
# (Dispatcher, "Redispatch"), so a 502 for a request sent after the worker died is a violation. Used by
# worker_kill_chaos_test.rb (30 s in CI) and by `bench/run worker-kills` (5 minutes). Loopback only,
# bounded by its duration.
require "load_loop"

class WorkerKills
  # The numbers of one run. +kills+: one Kill per SIGKILL. +violations+: what broke the claim, empty when
  # it held. +fds+: the host's open file descriptors [before the load, after the run].
  # +redispatched+: requests the host put back in its queue because a dead worker's link never delivered them.
  Report = Struct.new(:seconds, :sent, :ok, :bad_gateway, :other, :kills, :fds, :violations, :redispatched,
                      keyword_init: true) do
    def in_flight_at_kills
      kills.sum(&:in_flight)
    end

    def summary
      format("worker kills: %<s>d s, %<k>d kills, %<sent>d requests sent, %<ok>d answered 200, %<bg>d answered 502, " \
             "%<other>d otherwise; in flight on the killed worker at each kill: %<each>s (sum %<sum>d); " \
             "502s per kill: %<cost>s; dead %<dead>s ms after each SIGKILL; dispatched again: %<again>d; " \
             "replacement back at full slots after %<back>s s; host fds %<fds>s; %<v>s",
             s: seconds, k: kills.size, sent: sent, ok: ok, bg: bad_gateway, other: other,
             each: kills.map(&:in_flight).inspect, sum: in_flight_at_kills, cost: kills.map(&:cost).inspect,
             dead: kills.map { |kill| ((kill.dead_at - kill.at) * 1000).round(1) }.inspect, again: redispatched,
             back: kills.map { |kill| kill.replaced_after&.round(2) }.inspect, fds: fds.join(" -> "),
             v: violations.empty? ? "no violations" : "#{violations.size} violations")
    end
  end

  # One SIGKILL: the victim's pid, when it was sent and when the victim was seen dead (its sockets closed;
  # CLOCK_MONOTONIC s), and what it cost. +started+: requests the app had started on the victim, sent before
  # it died, that the client had no answer for at the kill (in flight). +cut+: those of them answered 502.
  # +unstarted+: 502s never started by an app, sent before the victim was dead and answered within 1 s of
  # the kill: written to a link of the victim in the instant before it died (in flight, not yet read).
  # +replaced_after+: seconds until the replacement had dialled in every slot (nil: never).
  Kill = Struct.new(:pid, :at, :dead_at, :started, :cut, :unstarted, :replaced_after) do
    def in_flight
      started + unstarted
    end

    def cost
      cut + unstarted
    end
  end

  # +server+: a started PumaPlusServer running the probe app with +slots_per_worker+ threads. +seconds+:
  # how long the load runs. +interval+: the Range of seconds between kills. +seed+: for the choice of
  # victim and interval. +app_log+: the file the probe app logs every request start to.
  def initialize(server, seconds:, app_log:, interval: 5.0..15.0, rps: 50, seed: 1, slots_per_worker: 2)
    @server = server
    @seconds = seconds
    @interval = interval
    @rps = rps
    @random = Random.new(seed)
    @app_log = app_log
    @slots_per_worker = slots_per_worker
  end

  # Runs load and kills for +seconds+; returns the Report.
  def run
    fds_before = host_fds
    load = LoadLoop.new(@server.port, rps: @rps, path: "/sleep?ms=10&log=#{@app_log}", clients: 8).start
    kills = []
    finish = monotonic + @seconds
    while (next_kill = monotonic + @random.rand(@interval)) < finish
      sleep(next_kill - monotonic)
      kills << kill_one
    end
    sleep([finish - monotonic, 0].max)
    result = load.stop
    fds_after = settled_fds(fds_before)
    judge(result.outcomes, kills, [fds_before, fds_after])
  end

  private

  def kill_one
    victim = @server.worker_pids.sample(random: @random)
    at = monotonic
    Process.kill("KILL", victim)
    dead_at = dead_after(victim, at)
    Kill.new(victim, at, dead_at, 0, 0, 0, replaced_after(victim, at))
  end

  # When +pid+ was first seen gone, or a zombie with no other thread left, polled every ms: an upper bound on
  # the moment its links closed. At most 1 s. The threads share one file table, closed by the last thread
  # to exit, and the main thread turns zombie as soon as it has exited itself: a zombie main thread
  # alone proves nothing while the link threads are still exiting (a request written then still reached
  # an open socket, was never read, and was answered 502 after "dead"). A thread other than the main one
  # leaves the task list only after its files are released.
  def dead_after(pid, killed_at)
    until monotonic > killed_at + 1
      gone = begin
        state = File.read("/proc/#{pid}/stat")[/\) (\S)/, 1]
        %w[Z X].include?(state) && Dir.children("/proc/#{pid}/task") == [pid.to_s]
      rescue Errno::ENOENT, Errno::ESRCH
        true
      end
      return monotonic if gone

      sleep 0.001
    end
    monotonic
  end

  # Seconds from the kill until /stats shows every worker booted, the victim gone and every slot live
  # again; nil if that takes more than 30 s.
  def replaced_after(victim, killed_at)
    deadline = killed_at + 30
    until monotonic > deadline
      stats = @server.stats
      pids = stats["worker_status"].map { |worker| worker["pid"] }
      live = stats["worker_status"].sum { |worker| worker.dig("last_status", "running").to_i }
      return monotonic - killed_at if !pids.include?(victim) && live == @server.slots &&
                                      stats["booted_workers"] == pids.size
      sleep 0.05
    end
    nil
  end

  # The host's fd count once the load's connections are closed: polled until it is back at +baseline+ or
  # 10 s pass (then the last count, which the report shows as a leak).
  def settled_fds(baseline)
    count = nil
    deadline = monotonic + 10
    loop do
      count = host_fds
      return count if count <= baseline || monotonic > deadline

      sleep 0.1
    end
  end

  def host_fds
    Dir.children("/proc/#{@server.pid}/fd").size
  end

  # The claim: every request answered, 200 or 502; a 502 only for a request in flight on a killed worker
  # (none for a request sent after it died); a kill costs at most one request per slot of the victim;
  # every kill replaced; the host's fds back to baseline.
  def judge(outcomes, kills, fds)
    started_on = File.exist?(@app_log) ? File.readlines(@app_log, chomp: true).to_h { |line| line.split.values_at(1, 2) } : {}
    by_status = outcomes.group_by(&:status)
    kills.each do |kill|
      kill.started = outcomes.count do |o|
        started_on[o.id] == kill.pid.to_s && o.sent_at < kill.dead_at && o.answered_at > kill.at
      end
    end
    violations = by_status.fetch(502, []).filter_map { |o| attribute_502(o, started_on, kills) }
    kills.each do |kill|
      next if kill.cost <= @slots_per_worker

      violations << "the kill of #{kill.pid} cost #{kill.cost} requests (#{kill.cut} cut, " \
                    "#{kill.unstarted} unstarted), more than its #{@slots_per_worker} slots"
    end
    other = outcomes.reject { |o| [200, 502].include?(o.status) }
    other.first(10).each { |o| violations << "#{o.id}: #{o.status.inspect}" }
    kills.each { |kill| violations << "no replacement for #{kill.pid} within 30 s" unless kill.replaced_after }
    violations << "host fds #{fds.first} before, #{fds.last} after: links leaked" if fds.last > fds.first
    redispatched = @server.output.scan(/closed before its worker had request/).size
    counted = @server.stats.fetch("queue").fetch("redispatched")
    violations << "/stats counts #{counted} redispatches, the log #{redispatched}" if counted != redispatched
    Report.new(seconds: @seconds, sent: outcomes.size, ok: by_status.fetch(200, []).size,
               bad_gateway: by_status.fetch(502, []).size, other: other.size, kills: kills, fds: fds,
               violations: violations, redispatched: redispatched)
  end

  # Counts the 502 +o+ against the kill it belongs to; returns a violation when it belongs to none.
  def attribute_502(o, started_on, kills)
    if (pid = started_on[o.id])
      kill = kills.find { |k| k.pid.to_s == pid && o.sent_at < k.dead_at && o.answered_at > k.at }
      if kill
        kill.cut += 1
        return nil
      end
    else
      kill = kills.find { |k| o.answered_at > k.at && o.answered_at <= k.at + 1 && o.sent_at < k.dead_at }
      if kill
        kill.unstarted += 1
        return nil
      end
    end
    "502 for #{o.id} (sent #{o.sent_at.round(3)}, answered #{o.answered_at.round(3)}, ran on #{pid.inspect}) " \
      "that was in flight on no killed worker (kills at #{kills.map { |k| k.at.round(3) }.join(', ')})"
  end

  def monotonic
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
