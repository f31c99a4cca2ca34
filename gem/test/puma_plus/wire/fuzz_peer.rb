# frozen_string_literal: true

# The fuzzing end of one worker link, for the link-level fuzzers (worker/link_fuzz_test.rb plays the host
# to a real worker link, test/integration/link_fuzz_test.rb plays a worker to the real host): sends a
# hostile input, ends the stream, and reads what the other side answers until it closes the link.

require "socket"

module PumaPlus
  module Wire
    module FuzzPeer
      # Writes +input+ to +io+ and shuts down the writing half. The other side may close the link before
      # taking everything (its error came early): that is not an error here.
      def self.send_and_end(io, input)
        io.write(input)
        io.shutdown(Socket::SHUT_WR)
      rescue IOError, SystemCallError
        nil
      end

      # Everything the other side sends until it closes the link, or nil if it is still open after +seconds+.
      def self.read_until_closed(io, seconds)
        received = +"".b
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
        loop do
          remaining = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          return nil if remaining <= 0 || !io.wait_readable(remaining)

          received << io.readpartial(65_536)
        end
      rescue EOFError, Errno::ECONNRESET
        received
      end

      # The frames in +bytes+ as [Frame, typed payload]; raises Wire::ProtocolError for a malformed one.
      def self.frames(bytes)
        io = StringIO.new(bytes)
        frames = []
        while (frame = Frame.read(io))
          frames << [frame, Wire.decode(frame)]
        end
        frames
      end

      # How many of +frames+ (from #frames) are GOAWAY(1), the answer to a protocol error.
      def self.protocol_errors(frames)
        frames.count { |frame, payload| frame.type == FrameType::GOAWAY && payload.code == GoAway::PROTOCOL_ERROR }
      end
    end
  end
end
