# frozen_string_literal: true

# Reads the frames of one worker link from its socket (worker ← host: WELCOME, REQUEST, BODY, GOAWAY): the
# first stop of a request inside the worker. One read asks the kernel for everything it holds, up to
# CHUNK bytes, so a REQUEST costs one read(2) however it is framed, where Frame.read pays one for the
# header and one for the payload.
#
# The socket is put in blocking mode: a read waits inside the kernel with the GVL released, instead of
# the EAGAIN, poll, read that Ruby does for a non-blocking socket. (Ruby still interrupts the read when
# another thread closes the socket.) Not on a thread with a fiber scheduler (a fiber slot,
# Worker::FiberReactor): there the socket stays non-blocking, so a read that finds nothing waits through
# the scheduler and the thread runs the other fibers. Writes on the link are unaffected: ResponseWriter
# uses write_nonblock, which sends with MSG_DONTWAIT.
#
# Threading: one instance per link, used by the link's thread only.

require "fcntl"
require_relative "frame"

module PumaPlus
  module Wire
    class FrameReader
      # Bytes asked for per read(2): a whole REQUEST with its headers, usually with room to spare.
      CHUNK = 65_536
      # One u32 of the header (type and flags, then length): two unpack1 allocate no Array.
      WORD = "N"

      # +io+: the link's socket (switched to blocking mode unless the calling thread has a fiber scheduler).
      def initialize(io)
        @io = io
        # fcntl, not io/nonblock's IO#nonblock=, which a Ractor slot may not call (Ruby 3.1)
        @io.fcntl(Fcntl::F_SETFL, @io.fcntl(Fcntl::F_GETFL) & ~File::NONBLOCK) unless Fiber.scheduler
        @data = Frame::EMPTY # bytes read and not yet returned in a frame, from @offset on
        @offset = 0
      end

      # The next frame, or nil on a clean end of stream before its first byte: Frame.read's contract and
      # errors, over the buffered bytes. A payload longer than what is buffered is completed with reads of
      # exactly the missing bytes, so a large BODY is never read past its end into the buffer.
      def read
        return nil unless buffer(Frame::HEADER_SIZE)

        word = @data.unpack1(WORD, offset: @offset)
        length = @data.unpack1(WORD, offset: @offset + 4)
        name = Frame.check_header(word >> 24, length)
        Frame.new(word >> 24, word & Frame::FLAGS_MASK, payload(name, length))
      end

      private

      # Whether at least +count+ unread bytes are buffered after reading once if none are; raises
      # ProtocolError when the stream ends inside a frame header.
      def buffer(count)
        available = @data.bytesize - @offset
        return true if available >= count

        more = read_chunk
        if more.nil?
          return false if available.zero?

          raise ProtocolError, "stream ended inside a frame header"
        end
        @data = available.zero? ? more : @data.byteslice(@offset, available) + more
        @offset = 0
        buffer(count)
      end

      # The payload of +length+ bytes that starts at @offset + HEADER_SIZE.
      def payload(name, length)
        start = @offset + Frame::HEADER_SIZE
        available = @data.bytesize - start
        if available >= length
          @offset = start + length
          return length.zero? ? Frame::EMPTY : @data.byteslice(start, length)
        end

        payload = @data.byteslice(start, available)
        @data = Frame::EMPTY
        @offset = 0
        while payload.bytesize < length
          more = read_chunk(length - payload.bytesize)
          raise ProtocolError, "#{name}: stream ended inside the payload" if more.nil?

          payload << more
        end
        payload
      end

      # Up to +max+ bytes, as soon as any are there; nil at the end of the stream. readpartial, not
      # sysread: a signal that lands on this thread during the read (EINTR) is retried, not raised.
      def read_chunk(max = CHUNK)
        @io.readpartial(max)
      rescue EOFError
        nil
      end
    end
  end
end
