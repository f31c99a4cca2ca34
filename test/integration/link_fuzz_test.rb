# A fuzzing peer on the real host's link.sock (the socket every worker slot dials, station "dispatch" of the
# request's path) sends mutated frames, before and after a valid HELLO: the host closes only that link, logs
# its protocol error once, keeps serving HTTP through the real workers' links while it happens, and a real
# worker serves a request afterwards.
require "server_helper"
require "load_loop"
require "socket"
require_relative "../../gem/lib/puma_plus/wire"
require_relative "../../gem/test/puma_plus/wire/frame_mutator"
require_relative "../../gem/test/puma_plus/wire/fuzz_peer"

class LinkFuzzTest < IntegrationTest
  TEST_TIMEOUT = 180
  Wire = PumaPlus::Wire
  SEED = Integer(ENV.fetch("LINK_FUZZ_SEED", "1"))
  LINKS = 60 # per phase
  # Seconds the host may take to close a fuzzed link once the peer has sent everything.
  CLOSE_WITHIN = 5

  def test_a_peer_sending_mutated_frames_loses_only_its_link_and_the_host_serves_on
    server = start_server(app("probe.ru"), workers: 1, threads: 2)
    link_path = link_socket(server)
    workers = server.worker_pids
    mutator = Wire::FrameMutator.new(SEED, max_seed_size: 65_536)

    # Phase 1: mutated bytes in place of the handshake, while clients keep being served.
    load = LoadLoop.new(server.port, rps: 20, path: "/sleep?ms=5", clients: 2).start
    handshake = fuzz_links(link_path, mutator, hello: false)
    result = load.stop
    assert_empty result.failures, with_log(server, "HTTP clients failed while peers fuzzed the handshake")
    assert_operator result.ok, :>, 0

    # Phase 2: a valid worker HELLO, then mutated frames on the idle worker link (no HTTP load: the fuzzing
    # peer is a free slot the host could dispatch to).
    after_hello = fuzz_links(link_path, mutator, hello: true)

    links = handshake + after_hello
    errors = links.count { |link| link[:goaways] == 1 }
    diag "#{links.size} fuzzed links, #{errors} answered with GOAWAY(1); skipped #{@skipped} valid handshakes"
    links.each do |link|
      assert link[:closed], with_log(server, "the host left link #{link[:name]} open #{CLOSE_WITHIN} s after the peer's last byte")
      assert_operator link[:goaways], :<=, 1, with_log(server, "link #{link[:name]} got #{link[:goaways]} GOAWAY(1)")
    end
    assert_operator errors, :>=, LINKS, "most mutations should be protocol errors"

    logged = eventually(timeout: 5) do
      lines = server.output.lines.grep(/protocol error/)
      lines if lines.size >= errors
    end
    lines = server.output.lines.grep(/protocol error/)
    assert_equal errors, lines.size, with_log(server, "one protocol-error line per link that got GOAWAY(1)")
    refute_nil logged
    assert_equal errors, lines.map { |line| line[/link (\S+)/, 1] }.uniq.size, "each line names its own link"
    refute_match(/internal error|Exception/, server.output, with_log(server, "the host hit an error of its own"))

    assert PumaPlusServer.alive?(server.pid), "the host died"
    assert_equal workers, server.worker_pids, "the real workers were not touched"
    response = server.request("GET", "/pid")
    assert_equal 200, response.status
    assert_equal workers, [Integer(response.body)], "a real worker serves after the fuzz"
  end

  private

  # The link.sock the host listens on: the shepherd is started with it in PUMA_PLUS_LINK.
  def link_socket(server)
    server.descendant_pids.each do |pid|
      environ = File.binread("/proc/#{pid}/environ").split("\0")
      link = environ.find { |entry| entry.start_with?("PUMA_PLUS_LINK=") }
      return link.split("=", 2).last if link
    rescue Errno::ENOENT, Errno::EACCES
      next
    end
    flunk "no process of the server has PUMA_PLUS_LINK"
  end

  # Dials LINKS links, each sending (after a valid worker HELLO when +hello+) one mutated input, then half-
  # closing; returns per link whether the host closed it in time and how many GOAWAY(1) it sent. Inputs whose
  # first frame is itself a valid HELLO are skipped in the handshake phase: that peer would be a real slot or
  # shepherd (link.sock is the user's own private socket; impersonation is not a decoding matter).
  def fuzz_links(link_path, mutator, hello:)
    @skipped ||= 0
    links = []
    while links.size < LINKS
      input = mutator.next_input
      if !hello && valid_hello?(input)
        @skipped += 1
        next
      end
      links << fuzz_link(link_path, input, hello, "#{hello ? 'after-hello' : 'handshake'}-#{links.size}")
    end
    links
  end

  def valid_hello?(input)
    frame = Wire::Frame.read(StringIO.new(input))
    frame&.type == Wire::FrameType::HELLO && Wire.decode(frame)
  rescue Wire::ProtocolError
    false
  end

  def fuzz_link(link_path, input, hello, name)
    socket = UNIXSocket.new(link_path)
    if hello
      socket.write(Wire::Hello.new(version: Wire::VERSION, role: Wire::Hello::ROLE_WORKER, pid: Process.pid, generation: 1,
                                   worker_index: 0, thread_index: 99, request_id: 0).encode)
      welcome = Wire::Frame.read(socket)
      assert_equal Wire::FrameType::WELCOME, welcome&.type, "#{name}: a valid HELLO gets WELCOME"
    end
    Wire::FuzzPeer.send_and_end(socket, input)
    received = Wire::FuzzPeer.read_until_closed(socket, CLOSE_WITHIN)
    { name: name, closed: !received.nil?, goaways: Wire::FuzzPeer.protocol_errors(Wire::FuzzPeer.frames(received.to_s)) }
  ensure
    socket&.close
  end
end
