# frozen_string_literal: true

# The pair-list hot paths of the worker's request path in pure Ruby: storing a REQUEST's pairs into the env
# (between the link's read and app.call) and appending response header pairs to the frame being written.
# PumaPlus::Wire::NativeCodec (gem/ext/puma_plus/wire/native_codec) implements the same three functions in
# C and is used instead when script/build compiled it; PairList calls whichever Wire::PairList::CODEC names.
# Both are held to the golden corpus (test/puma_plus/wire/codec_corpus_test.rb).

require_relative "protocol_error"

module PumaPlus
  module Wire
    module RubyCodec
      # One pair: u16 name length, name, u32 value length, value.
      PAIR_FORMAT = "na*Na*"
      MAX_NAME = 0xFFFF

      # Stores every pair of the list that starts at byte +offset+ of +payload+ into +hash+ (later pairs
      # overwrite earlier ones) with #[]=: names as interned frozen binary Strings (so Hash#[]= does not copy
      # them), values as new binary Strings. Returns +hash+. (PairList.decode passes an object whose #[]=
      # keeps every pair in order.) Raises ProtocolError for a truncated pair list (pairs before the bad
      # one are already stored).
      def self.store_pairs(payload, hash, offset)
        size = payload.bytesize
        while offset < size
          # unpack1 answers nil when fewer bytes remain than the field needs
          name_length = payload.unpack1("n", offset: offset)
          value_at = name_length ? offset + 2 + name_length : size + 1
          value_length = value_at <= size ? payload.unpack1("N", offset: value_at) : nil
          raise ProtocolError, "truncated pair list: pair at byte #{offset}" unless value_length

          value_end = value_at + 4 + value_length
          raise ProtocolError, "truncated pair list: value of #{value_length} bytes at byte #{value_at + 4}" if value_end > size

          hash[-payload.byteslice(offset + 2, name_length)] = payload.byteslice(value_at + 4, value_length)
          offset = value_end
        end
        hash
      end

      # Appends one pair (+name+ and +value+ Strings; their bytes are sent) to the binary String +buffer+
      # and returns it. Raises ProtocolError for a name longer than 65,535 bytes.
      def self.append_pair(buffer, name, value)
        name_length = name.bytesize
        raise ProtocolError, "pair name of #{name_length} bytes exceeds #{MAX_NAME}" if name_length > MAX_NAME

        [name_length, name, value.bytesize, value].pack(PAIR_FORMAT, buffer: buffer)
      end

      # Appends every [name, value] of the Array +pairs+, in order, as append_pair does; returns +buffer+.
      def self.append_pairs(buffer, pairs)
        pairs.each { |name, value| append_pair(buffer, name, value) }
        buffer
      end
    end
  end
end
