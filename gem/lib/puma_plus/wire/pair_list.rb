# frozen_string_literal: true

# The name/value pair list of docs/PROTOCOL.md: the Rack env in REQUEST and the headers in
# RESPONSE_HEAD. Decoding walks one payload string with unpack1(offset:) and byteslice, so building a
# request's env costs two slices per pair and no other string work.
#
# +---------------+----------------+----------------+------------------+
# | name len (u16)| name (bytes)   | value len (u32)| value (bytes)    |
# +---------------+----------------+----------------+------------------+

require_relative "protocol_error"

module PumaPlus
  module Wire
    module PairList
      # One pair: u16 name length, name, u32 value length, value.
      PAIR_FORMAT = "na*Na*"
      MAX_NAME = 0xFFFF
      MAX_VALUE = 0xFFFF_FFFF

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

      # The pairs of +payload+ (from +offset+) as an Array of [name, value].
      def self.decode(payload, offset = 0)
        pairs = []
        each(payload, offset) { |name, value| pairs << [name, value] }
        pairs
      end

      # Appends the encoding of +pairs+ (an Enumerable of [name, value] Strings; their bytes are sent)
      # to +buffer+ and returns it. Raises ProtocolError for a name longer than 65,535 bytes.
      def self.encode(pairs, buffer = String.new(encoding: Encoding::BINARY))
        pairs.each { |name, value| append(buffer, name, value) }
        buffer
      end

      # Appends one pair to +buffer+.
      def self.append(buffer, name, value)
        name_length = name.bytesize
        raise ProtocolError, "pair name of #{name_length} bytes exceeds #{MAX_NAME}" if name_length > MAX_NAME

        [name_length, name, value.bytesize, value].pack(PAIR_FORMAT, buffer: buffer)
      end
    end
  end
end
