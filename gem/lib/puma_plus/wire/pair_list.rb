# frozen_string_literal: true

# The name/value pair list of docs/PROTOCOL.md: the Rack env in REQUEST and the headers in
# RESPONSE_HEAD. #each and #decode walk one payload string with unpack1(offset:) and byteslice for tools,
# tests and the corpus; the worker's hot paths (#store, #encode, #append) go to CODEC, the C
# Wire::NativeCodec when it is built, else the pure-Ruby Wire::RubyCodec.
#
# +---------------+----------------+----------------+------------------+
# | name len (u16)| name (bytes)   | value len (u32)| value (bytes)    |
# +---------------+----------------+----------------+------------------+

require_relative "protocol_error"
require_relative "ruby_codec"
begin
  require_relative "native_codec" # gem/ext/puma_plus/wire/native_codec, compiled by script/build
rescue LoadError
  nil # not built: RubyCodec serves
end

module PumaPlus
  module Wire
    module PairList
      MAX_NAME = RubyCodec::MAX_NAME
      # The codec of the hot paths (store, encode, append): the C one when script/build compiled it.
      CODEC = defined?(NativeCodec) ? NativeCodec : RubyCodec

      # Yields each (name, value) of the pair list in +payload+ starting at byte +offset+, in order,
      # as new binary Strings. Raises ProtocolError when a pair is truncated (the list must end exactly
      # at the end of the payload); pairs before the bad one have already been yielded.
      def self.each(payload, offset = 0)
        size = payload.bytesize
        while offset < size
          raise ProtocolError, "truncated pair list: name length at byte #{offset}" if offset + 2 > size

          name_length = payload.unpack1("n", offset: offset)
          offset += 2
          if offset + name_length + 4 > size
            raise ProtocolError, "truncated pair list: name of #{name_length} bytes at byte #{offset}"
          end

          name = payload.byteslice(offset, name_length)
          offset += name_length
          value_length = payload.unpack1("N", offset: offset)
          offset += 4
          if offset + value_length > size
            raise ProtocolError, "truncated pair list: value of #{value_length} bytes at byte #{offset}"
          end

          yield name, payload.byteslice(offset, value_length)
          offset += value_length
        end
        nil
      end

      # Stores every pair of the REQUEST +payload+, from byte +offset+ (where the pair list starts), into
      # +hash+ (later pairs overwrite earlier ones): names as interned frozen binary Strings (so Hash#[]=
      # does not copy them), values as fresh binary Strings. The worker's hot path: the same checks as
      # #each, without a block call per pair. Raises ProtocolError for a truncated pair list (pairs before
      # the bad one are already stored).
      def self.store(payload, hash, offset = 0)
        CODEC.store_pairs(payload, hash, offset)
      end

      # The pairs of +payload+ (from +offset+) as an Array of [name, value].
      def self.decode(payload, offset = 0)
        pairs = []
        each(payload, offset) { |name, value| pairs << [name, value] }
        pairs
      end

      # Appends the encoding of +pairs+ (an Enumerable of [name, value] Strings; their bytes are sent)
      # to +buffer+ and returns it. Raises ProtocolError for a name longer than 65,535 bytes.
      def self.encode(pairs, buffer = String.new(encoding: Encoding::BINARY))
        CODEC.append_pairs(buffer, pairs.to_a)
      end

      # Appends one pair to +buffer+.
      def self.append(buffer, name, value)
        CODEC.append_pair(buffer, name, value)
      end
    end
  end
end
