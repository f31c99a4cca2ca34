# frozen_string_literal: true

# A fake host sends mutated frames (FrameMutator) to real worker links after their handshake, the worker's
# end of station "dispatch": each link ends on its own (GOAWAY(1) and a log line for a protocol error, never
# an unexpected exception), and in a real forked worker process the slot dials in again while the process
# and its other slot serve on (docs/PROTOCOL.md, "Errors"; Worker::Slot).
#
# The in-process part runs for FRAME_FUZZ_SECONDS (default 2: the CI run) from seed FRAME_FUZZ_SEED (default
# 1): FrameMutator.fuzz.

require "test_helper"
require "puma_plus/worker"
require_relative "../wire/frame_mutator"
require_relative "../wire/fuzz_peer"

class PumaPlus::Worker::LinkFuzzTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire
  FuzzPeer = Wire::FuzzPeer
  # Seconds a link may take to end once the host's last byte (and end of stream) is out.
  END_WITHIN = 2.0
  # Link inputs larger than this are left out: each costs a socket write, and the decoders' own fuzz
  # (wire/frame_fuzz_test.rb) covers the 1 MiB cases.
  MAX_SEED_SIZE = 65_536
  APP = ->(env) { [200, { "content-type" => "text/plain" }, ["#{env['PATH_INFO']} #{Process.pid}"]] }

  def test_every_mutated_stream_ends_only_its_link_with_at_most_one_goaway_and_never_an_unexpected_error
    prototype = PumaPlus::RackEnv.prototype(multithread: false, multiprocess: false)
    totals = Hash.new(0)
    seconds, first_seed = Wire::FrameMutator.fuzz(2, max_seed_size: MAX_SEED_SIZE) do |input, label|
      next totals[:skipped] += 1 if ends_for_good?(input)

      fuzz_one(prototype, input, label, totals)
    end
    puts format("link fuzz (Ruby Worker::Link): %<links>d links from seed %<seed>d on in %<s>g s: %<errors>d protocol errors " \
                "(GOAWAY(1)), %<served>d responses, %<skipped>d inputs with a valid GOAWAY(0) left out, 0 unexpected errors",
                links: totals[:links], seed: first_seed, s: seconds, errors: totals[:errors], served: totals[:served],
                skipped: totals[:skipped])
    assert_operator totals[:links], :>=, 100, "too few links to be a fuzz"
    assert totals[:errors].positive? && totals[:errors] < totals[:links]
  end

  def test_a_worker_process_whose_link_gets_mutated_frames_dials_that_slot_in_again_and_serves_on
    host = PumaPlus::TestHost.new
    log_reader, log_writer = IO.pipe
    pid = fork do
      log_reader.close
      exit!(PumaPlus::Worker.new(link_path: host.link_path, index: 0, threads: 2, workers: 1, app: APP, log: log_writer).run)
    end
    log_writer.close
    links = Array.new(2) { host.accept_link }
    spare, = links.find { |_, hello| hello.thread_index == 1 }
    fuzzed, hello = links.find { |_, hello| hello.thread_index.zero? }
    mutator = Wire::FrameMutator.new(1, max_seed_size: MAX_SEED_SIZE)
    # The slot waits 0.1, 0.2, 0.4 and 0.8 s before each new link (Slot::REDIAL_DELAY, doubling).
    4.times do |n|
      input = mutator.next_input
      redo if ends_for_good?(input)

      FuzzPeer.send_and_end(fuzzed.io, input)
      assert FuzzPeer.read_until_closed(fuzzed.io, END_WITHIN), "link #{n}: the worker left its link open"
      assert process_alive?(pid), "link #{n}: the worker process died"
      spare.request({ "PATH_INFO" => "/spare#{n}" })
      assert_equal "/spare#{n} #{pid}", spare.response.body, "the other slot serves while one is fuzzed"
      fuzzed, hello = host.accept_link
      assert_equal [pid, 0, 0], [hello.pid, hello.worker_index, hello.thread_index], "the same slot dials in again"
    end
    fuzzed.request({ "PATH_INFO" => "/after" })
    assert_equal "/after #{pid}", fuzzed.response.body, "the slot's new link serves"
    log = log_reader.read_nonblock(1 << 20, exception: false).to_s
    assert_match(/worker 0 thread 0: link broke; dialling in again/, log)
    refute_match(/link thread failed/, log)
  ensure
    Process.kill("KILL", pid) if pid
    Process.wait(pid) if pid
    host&.cleanup
  end

  private

  # Whether +input+ holds a valid GOAWAY(0): the host's order to leave for good, which ends the slot by
  # design (Link#run returns true), so it is not a fuzz input for "the link breaks and is replaced".
  def ends_for_good?(input)
    io = StringIO.new(input)
    while (frame = Wire::Frame.read(io))
      return true if frame.type == Wire::FrameType::GOAWAY && Wire.decode(frame).code == Wire::GoAway::NORMAL
    end
    false
  rescue Wire::ProtocolError
    false
  end

  # One link handshaken over a socket pair, then +input+ and end of stream from the host: the link must end
  # within END_WITHIN, ready to be replaced (run returns false), with GOAWAY(1) and its log line for a
  # protocol error, and never the "link thread failed" of an unexpected exception.
  def fuzz_one(prototype, input, context, totals)
    host_io, worker_io = UNIXSocket.pair
    log = StringIO.new
    link = PumaPlus::Worker::Link.new(app: APP, prototype: prototype, worker_index: 0, thread_index: 0, io: worker_io, log: log)
    thread = Thread.new { link.run }
    host = PumaPlus::HostEnd.new(host_io)
    host.accept
    writer = Thread.new { FuzzPeer.send_and_end(host_io, input) }
    received = FuzzPeer.read_until_closed(host_io, END_WITHIN)
    refute_nil received, "#{context}: the link stayed open #{END_WITHIN} s after the host's last byte"
    assert thread.join(END_WITHIN), "#{context}: Link#run did not return"
    assert_equal false, thread.value, "#{context}: a broken link must be replaced"
    frames = begin
      FuzzPeer.frames(received)
    rescue Wire::ProtocolError => e
      flunk "#{context}: the worker sent a malformed frame: #{e.message}"
    end
    goaways = FuzzPeer.protocol_errors(frames)
    assert_operator goaways, :<=, 1, "#{context}: #{goaways} GOAWAY(1)"
    assert_equal goaways == 1, log.string.include?(": protocol error: "), "#{context}: log #{log.string.inspect}"
    refute_match(/link thread failed/, log.string, context)
    totals[:links] += 1
    totals[:errors] += goaways
    totals[:served] += frames.count { |frame, _| frame.type == Wire::FrameType::RESPONSE_HEAD }
  ensure
    writer&.join
    host_io&.close
    thread&.join(END_WITHIN)
  end
end
