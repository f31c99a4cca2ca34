# frozen_string_literal: true

# The name/value pair list of docs/PROTOCOL.md: the Rack env in REQUEST and the headers in
# RESPONSE_HEAD. #decode reads one into an Array for tools, tests and the corpus with the pure-Ruby
# Wire::RubyCodec; the worker's hot paths (#store, #encode, #append) go to CODEC, the C Wire::NativeCodec
# when it is built, else RubyCodec.
#
# +---------------+----------------+----------------+------------------+
# | name len (u16)| name (bytes)   | value len (u32)| value (bytes)    |
# +---------------+----------------+----------------+------------------+

require "rbconfig"
require_relative "protocol_error"
require_relative "ruby_codec"
begin
  # gem/ext/puma_plus/wire/native_codec, compiled by script/native (or `gem install`) for each Ruby ABI
  require_relative "#{RbConfig::CONFIG['ruby_version']}/native_codec"
rescue LoadError
  nil # not built: RubyCodec serves
end

module PumaPlus
  module Wire
    module PairList
      MAX_NAME = RubyCodec::MAX_NAME
      # The codec of the hot paths (store, encode, append): the C one when script/build compiled it.
      CODEC = defined?(NativeCodec) ? NativeCodec : RubyCodec

      # Stores every pair of the REQUEST +payload+, from byte +offset+ (where the pair list starts), into
      # +hash+ (later pairs overwrite earlier ones): names as interned frozen binary Strings (so Hash#[]=
      # does not copy them), values as fresh binary Strings. The worker's hot path. Raises ProtocolError for
      # a truncated pair list (pairs before the bad one are already stored).
      def self.store(payload, hash, offset = 0)
        CODEC.store_pairs(payload, hash, offset)
      end

      # Keeps every pair RubyCodec.store_pairs stores, in order and with repeats, where a Hash would keep
      # the last value of each name: so #decode reads a pair list with the code and checks of the Ruby #store.
      class InOrder
        attr_reader :pairs

        def initialize
          @pairs = []
        end

        def []=(name, value)
          @pairs << [name, value]
        end
      end
      private_constant :InOrder

      # The pairs of +payload+ (from +offset+) as an Array of [name, value], in order, repeats kept: names
      # frozen binary Strings, values new binary Strings. Raises ProtocolError for a truncated pair list.
      def self.decode(payload, offset = 0)
        RubyCodec.store_pairs(payload, InOrder.new, offset).pairs
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
