# The HTTP/1.x parser fuzz test (the parse step of accept → parse → queue → ...): requests from Http1Mutator,
# each on its own connection, against the real host and a real Ruby worker that logs every call
# (apps/request_log.ru). Claims: never a 2xx, and never an app call, for a request that breaks a MUST of
# RFC 9112; a valid request is served exactly once; never more than one response to the one request sent;
# never a hang (every connection answered, or closed once the client stops sending, within a deadline);
# never a request smuggled in a body reaching the app; the worker serves a valid request afterwards.
#
# In CI: fixed seeds, bounded to about 30 s. The long run is `bench/run http-fuzz --minutes 10`, which runs
# this file with HTTP_FUZZ_MINUTES (and HTTP_FUZZ_SEED, default: the time) set.
require "server_helper"
require "http1_mutator"

class Http1FuzzTest < IntegrationTest
  MINUTES = ENV["HTTP_FUZZ_MINUTES"]&.then { |m| Float(m) }
  BUDGET = MINUTES ? MINUTES * 60 : 25 # seconds of fuzzing
  SEEDS = if MINUTES
            [Integer(ENV.fetch("HTTP_FUZZ_SEED", Time.now.to_i.to_s))]
          else
            [1, 2, 3, 4, 5]
          end
  CASES_PER_SEED = MINUTES ? Float::INFINITY : 100
  TEST_TIMEOUT = BUDGET + 90
  CLIENTS = 6 # connections at once
  ANSWER_S = 5 # a request that is certainly complete is answered within this
  HAVOC_ANSWER_S = 1 # a havoc request may be incomplete: after this the client stops sending
  CLOSE_S = 5 # after the client's FIN, the server closes within this
  MORE_S = 0.3 # after a response on a kept-alive connection, a second response would come within this

  def test_fuzzed_requests_get_no_2xx_when_they_break_a_must_and_no_extra_response_hang_or_smuggled_call
    log = File.join(temp_dir, "requests.log")
    File.write(log, "")
    server = start_server(app("request_log.ru"), workers: 1, threads: 2, env: { "REQUEST_LOG" => log })
    failures = Queue.new
    cases = Queue.new
    started = monotonic
    source = cases_from(SEEDS)
    lock = Mutex.new
    clients = Array.new(CLIENTS) do
      Thread.new do
        loop do
          seed, index, c = lock.synchronize { monotonic - started < BUDGET && source.call }
          break unless c

          problem = judge(c, exchange(server.port, c))
          cases << c
          failures << "#{problem}\n  seed #{seed} case #{index} (#{c.steps.join('; ')}): #{c.bytes[0, 300].inspect}" if problem
        end
      end
    end
    clients.each(&:join)
    cases = Array.new(cases.size) { cases.pop }
    failures = Array.new(failures.size) { failures.pop }
    elapsed = monotonic - started

    # Every request the app saw, now that no connection is left: a refused request dispatched late would show.
    assert_equal 200, server.request("GET", "/after-fuzz").status, with_log(server, "the worker no longer serves")
    calls = File.readlines(log, chomp: true, encoding: Encoding::BINARY)
    smuggled = calls.grep(/smuggled/n)
    failures << "requests smuggled in a body reached the app: #{smuggled.first(5)}" unless smuggled.empty?
    calls_per_path = Hash.new(0)
    # Only /fz- cases are counted: a havoc case (/hv-) may be served, refused or cut anywhere.
    calls.each { |line| (path = line[%r{/fz-\d+-\d+/}n]) && calls_per_path[path] += 1 }
    cases.each do |c|
      seen = calls_per_path[c.path]
      if c.violating? && seen.positive?
        failures << "the app was called #{seen}x for a request that breaks #{c.violations.join(', ')}: #{c.bytes[0, 300].inspect}"
      elsif c.valid? && seen != 1
        failures << "a valid request reached the app #{seen}x, not once (#{c.steps.join('; ')}): #{c.bytes[0, 300].inspect}"
      end
    end

    violating = cases.count(&:violating?)
    valid = cases.count(&:valid?)
    report = "#{cases.size} requests in #{elapsed.round(1)} s (seeds #{SEEDS.join(',')}): #{violating} breaking a MUST, " \
             "#{valid} valid, #{cases.count(&:havoc)} havoc; #{failures.size} failures"
    puts "http-fuzz: #{report}" if MINUTES || ENV["VERBOSE"]
    assert failures.empty?, with_log(server, "#{report}:\n#{failures.first(20).join("\n")}")
    assert_operator violating, :>=, MINUTES ? 1 : 100, report
    assert_operator valid, :>=, MINUTES ? 1 : 50, report
  end

  private

  # A lambda returning [seed, index, case] for each seed in turn, CASES_PER_SEED of each, then nil.
  # Called under a lock: the cases come in the same order whichever client thread asks.
  def cases_from(seeds)
    remaining = seeds.dup
    mutator = nil
    index = 0
    lambda do
      if mutator.nil? || index >= CASES_PER_SEED
        return nil if remaining.empty?

        mutator = Http1Mutator.new(remaining.shift)
        index = 0
      end
      index += 1
      [mutator.seed, index, mutator.next_case]
    end
  end

  # What came back for case `c` on a fresh connection: { responses: [...], late: a response after the
  # client's FIN or nil, closed:, hung:, error: }.
  def exchange(port, c)
    connection = RawHttp::Connection.new("127.0.0.1", port, timeout: 5)
    result = { responses: [], late: nil, closed: false, hung: false, error: nil }
    writer = connection.write_in_background(c.bytes) # a 431 may close before all of a large head is written
    begin
      result[:responses] << connection.read_response(timeout: c.havoc ? HAVOC_ANSWER_S : ANSWER_S)
      loop { result[:responses] << connection.read_response(timeout: MORE_S) }
    rescue RawHttp::Timeout
      if result[:responses].empty?
        # Not answered: an incomplete request (havoc) waits for more. The client stops sending; the server
        # must then close, never keep the connection (or a slot) for the rest of its idle timeout.
        # An answer that comes after the FIN is late, not malformed (a havoc request sits near a deadline).
        writer.join(1)
        connection.socket.close_write
        begin
          result[:late] = connection.read_response(timeout: CLOSE_S)
        rescue EOFError, Errno::ECONNRESET
          result[:closed] = true
        rescue RawHttp::Timeout
          result[:hung] = true
        end
      end
    rescue EOFError, Errno::ECONNRESET, Errno::EPIPE
      result[:closed] = true
    end
    writer.join(1)
    result
  rescue RuntimeError => e # RawHttp: a malformed response
    result.merge(error: e.message)
  ensure
    connection&.close
  end

  # The problem with `result` for case `c`, or nil.
  def judge(c, result)
    return "malformed response: #{result[:error]}" if result[:error]
    return "hang: not answered, nor closed within #{CLOSE_S} s of the client's FIN" if result[:hung]
    return "#{result[:late].status} only after the #{ANSWER_S} s deadline" if result[:late] && !c.havoc

    statuses = result[:responses].map(&:status)
    return "#{statuses.size} responses to one request: #{statuses}" if !c.havoc && statuses.size > 1

    if c.violating?
      return "not answered, though it breaks #{c.violations.join(', ')}" if statuses.empty?
      return "#{statuses.first} for a request that breaks #{c.violations.join(', ')}" unless statuses.first >= 400
    elsif c.valid? && statuses != [200]
      return "#{statuses.inspect} for a valid request"
    end
    nil
  end
end
