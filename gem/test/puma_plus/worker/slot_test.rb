# frozen_string_literal: true

# Claims about a worker slot's redial backoff (station "worker" of the request path): the delay before a new
# link doubles while links break before the host's WELCOME and starts over after a link that was
# established. The test plays the host on a real unix socket in a temp dir.

require "test_helper"
require "socket"
require "stringio"
require "tmpdir"
require "puma_plus/worker"

class PumaPlus::Worker::SlotTest < PumaPlus::TestCase
  Wire = PumaPlus::Wire

  def test_redial_delay_doubles_while_dials_fail_and_starts_over_after_an_established_link
    Dir.mktmpdir do |dir|
      path = File.join(dir, "link.sock")
      server = UNIXServer.new(path)
      # The host's answer to each dial in turn: a BODY before WELCOME (a protocol error: the link breaks
      # unwelcomed), WELCOME and a close (an established link breaks), WELCOME and GOAWAY(0) (the slot ends).
      answers = %i[garbage garbage garbage welcome_close_now welcome_close_now welcome_close_now welcome_goaway]
      host = Thread.new do
        answers.each do |answer|
          end_of_link = PumaPlus::HostEnd.new(server.accept)
          case answer
          when :garbage
            end_of_link.read_frame
            end_of_link.io.write(Wire::Body.new(data: "x").encode)
          when :welcome_close_now
            end_of_link.accept
          when :welcome_goaway
            end_of_link.accept
            end_of_link.goaway(0)
            end_of_link.read_frame # the worker closes its end
          end
          end_of_link.close
        end
      end
      log = StringIO.new
      slot = PumaPlus::Worker::Slot.new(thread_index: 0, log: log, app: ->(_env) { [200, {}, []] },
                                        prototype: PumaPlus::RackEnv.prototype(multithread: false, multiprocess: false),
                                        worker_index: 0, path: path)
      slot.run
      host.join
      delays = log.string.scan(/dialling in again in ([\d.]+) s/).flatten.map(&:to_f)
      assert_equal [0.1, 0.2, 0.4, 0.1, 0.1, 0.1], delays, log.string
    ensure
      server&.close
    end
  end
end
