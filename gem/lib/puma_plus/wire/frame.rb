# frozen_string_literal: true

# One frame of the worker link (docs/PROTOCOL.md): the 8-byte header and the raw payload. Every byte a
# worker thread or the shepherd exchanges with the host is read and written through here.
#
#  0                   1                   2                   3
#  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
# +---------------+-----------------------------------------------+
# |     type      |                  flags (u24)                  |
# +---------------+-----------------------------------------------+
# |                      payload length (u32)                     |
# +---------------------------------------------------------------+
# |                    payload (length bytes) ...                 |
# +---------------------------------------------------------------+
#
# The first 32-bit word carries type (high byte) and flags (low 24 bits), so the whole header is one
# "NN" pack. Payloads are binary (ASCII-8BIT) strings; typed views of them live beside this file.

require "stringio"
require_relative "protocol_error"
require_relative "frame_type"

module PumaPlus
  module Wire
    class Frame < Struct.new(:type, :flags, :payload)
      # type (u8) << 24 | flags (u24), payload length (u32); big-endian.
      HEADER_FORMAT = "NN"
      HEADER_SIZE = 8
      # Largest payload a frame may carry (bytes); longer bodies are split across frames.
      MAX_PAYLOAD = 1_048_576
      # Flag bit 0: no further BODY / RESPONSE_BODY frames follow for this request.
      END_STREAM = 0x000001
      FLAGS_MASK = 0xFFFFFF
      EMPTY = "".b.freeze

      # The encoded bytes of one frame: header followed by +payload+ (a String of any encoding; its bytes
      # are sent). Raises ProtocolError when the payload exceeds MAX_PAYLOAD. Returns a new binary String.
      def self.encode(type, payload = EMPTY, flags = 0)
        length = payload.bytesize
        raise ProtocolError, "payload of #{length} bytes exceeds #{MAX_PAYLOAD}" if length > MAX_PAYLOAD

        [(type << 24) | (flags & FLAGS_MASK), length, payload].pack("NNa*")
      end

      # Appends the encoded frame to the binary String +buffer+ (so several frames go out in one write)
      # and returns the buffer. Same checks as encode.
      def self.append(buffer, type, payload = EMPTY, flags = 0)
        length = payload.bytesize
        raise ProtocolError, "payload of #{length} bytes exceeds #{MAX_PAYLOAD}" if length > MAX_PAYLOAD

        [(type << 24) | (flags & FLAGS_MASK), length, payload].pack("NNa*", buffer: buffer)
      end

      # Reads exactly one frame from +io+ (blocking; anything answering read(length) as IO#read does).
      # Returns a Frame, or nil on a clean end of stream before the first header byte. Raises ProtocolError
      # for an unknown type, an oversize length, or a stream that ends inside a frame; the message begins
      # with the frame's type ("BODY: ", or "0x7f: " for an unknown one). The unknown-type and length checks
      # happen before the payload is read, so a hostile length never allocates. The payload's layout is
      # checked by Wire.decode.
      def self.read(io)
        header = io.read(HEADER_SIZE)
        return nil if header.nil?
        raise ProtocolError, "stream ended inside a frame header" if header.bytesize < HEADER_SIZE

        word, length = header.unpack(HEADER_FORMAT)
        name = check_header(word >> 24, length)

        payload = length.zero? ? EMPTY : io.read(length)
        raise ProtocolError, "#{name}: stream ended inside the payload" if payload.nil? || payload.bytesize < length

        new(word >> 24, word & FLAGS_MASK, payload)
      end

      # The name of frame type +type+ for messages; raises ProtocolError when +length+ exceeds MAX_PAYLOAD.
      # Every header read (here and FrameReader) is checked with it before any payload byte is read.
      def self.check_header(type, length)
        name = FrameType.name_of(type)
        raise ProtocolError, "#{name}: payload length #{length} exceeds MAX_PAYLOAD #{MAX_PAYLOAD}" if length > MAX_PAYLOAD

        name
      end

      # Reads every frame in the binary String +bytes+ (e.g. a corpus .bin).
      def self.read_all(bytes)
        io = StringIO.new(bytes.b)
        frames = []
        while (frame = read(io))
          frames << frame
        end
        frames
      end

      def end_stream?
        (flags & END_STREAM) != 0
      end

      def type_name
        FrameType.name_of(type)
      end

      # The frame's bytes, header included.
      def encode
        Frame.encode(type, payload, flags)
      end
    end
  end
end
