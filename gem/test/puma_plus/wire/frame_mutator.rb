# frozen_string_literal: true

# Makes hostile worker-link byte streams for the frame fuzzers (wire/frame_fuzz_test.rb, worker/link_fuzz_test.rb
# and the host-side test/integration/link_fuzz_test.rb): golden-corpus cases (docs/protocol/corpus/, bytes a peer
# may really send) mangled the way a broken or malicious peer would, so a fuzz reaches the header, length and
# payload checks instead of stopping at the first byte. The Java tests' FrameMutator has the same operators.
#
# Seeded: the same seed gives the same inputs, so a failure names its seed and input number and reproduces.
# Operators (one to four per input): bit flip, random byte, truncation, length-field tampering (0, ±1,
# MAX_PAYLOAD, MAX_PAYLOAD + 1, 2^31 - 1, 2^32 - 1, random), type tampering (another defined type or any
# byte), an "interesting" u16/u32 written anywhere (the pair list's own length fields), concatenation with
# another case, a cut, and plain random bytes.

module PumaPlus
  module Wire
    class FrameMutator
      CORPUS = File.expand_path("../../../../docs/protocol/corpus", __dir__)
      MAX = 1_048_576 # Frame::MAX_PAYLOAD, spelled out so the mutator loads without the codec
      INTERESTING = [0, 1, MAX - 1, MAX, MAX + 1, 0x7FFF_FFFF, 0xFFFF_FFFF].freeze
      KNOWN_TYPES = [0x01, 0x02, 0x03, 0x04, 0x06, 0x07, 0x08, 0x10, 0x11, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26].freeze

      # Inputs from one seed before the next seed takes over.
      INPUTS_PER_SEED = 2_000

      # The fuzz loop of the Ruby fuzzers: yields (input, label) for FRAME_FUZZ_SECONDS (else
      # +default_seconds+) from seed FRAME_FUZZ_SEED (else 1) on, INPUTS_PER_SEED inputs per seed; the label
      # names the seed, the input number and the input's first bytes, so a failure reproduces. Returns
      # [seconds, first seed]. `bench/run frame-fuzz --minutes N --seed S` sets both variables.
      def self.fuzz(default_seconds, max_seed_size: nil)
        seconds = Float(ENV.fetch("FRAME_FUZZ_SECONDS", default_seconds.to_s))
        first_seed = Integer(ENV.fetch("FRAME_FUZZ_SEED", "1"))
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
        (first_seed..).each do |seed|
          mutator = new(seed, max_seed_size: max_seed_size)
          INPUTS_PER_SEED.times do |n|
            return [seconds, first_seed] if Process.clock_gettime(Process::CLOCK_MONOTONIC) >= deadline

            input = mutator.next_input
            yield input, "seed #{seed} input #{n} (#{input.bytesize} bytes: #{input.byteslice(0, 256).unpack1('H*')})"
          end
        end
      end

      # +seed+: the Random seed. +max_seed_size+: leave out corpus cases larger than this many bytes (the
      # link fuzzers, which pay a socket write per input, skip the 1 MiB cases).
      def initialize(seed, max_seed_size: nil)
        @random = Random.new(seed)
        @seeds = Dir[File.join(CORPUS, "*.bin")].sort.map { |path| File.binread(path) }
        @seeds.select! { |bytes| bytes.bytesize <= max_seed_size } if max_seed_size
        raise "no corpus cases in #{CORPUS}" if @seeds.empty?
      end

      # The next hostile input: a binary String.
      def next_input
        input = pick
        (1 + @random.rand(4)).times { input = mutate(input) }
        input
      end

      private

      def pick
        @seeds[@random.rand(@seeds.size)].dup
      end

      def mutate(input)
        case @random.rand(10)
        when 0 then flip_bit(input)
        when 1 then set_byte(input, @random.rand(256))
        when 2 then input.byteslice(0, input.empty? ? 0 : @random.rand(input.bytesize))
        when 3 then tamper_length(input)
        when 4 then tamper_type(input)
        when 5 then write_interesting(input)
        when 6 then input + pick
        when 7 then cut(input)
        when 8 then input + @random.bytes(1 + @random.rand(64))
        else @random.bytes(@random.rand(48))
        end
      end

      def flip_bit(input)
        return input if input.empty?

        at = @random.rand(input.bytesize)
        input.setbyte(at, input.getbyte(at) ^ (1 << @random.rand(8)))
        input
      end

      def set_byte(input, value)
        input.setbyte(@random.rand(input.bytesize), value) unless input.empty?
        input
      end

      def tamper_length(input)
        headers = header_offsets(input)
        return input if headers.empty?

        at = headers[@random.rand(headers.size)] + 4
        old = input.unpack1("N", offset: at)
        value = [INTERESTING[@random.rand(INTERESTING.size)], old + 1, old - 1, @random.rand(2**32)][@random.rand(4)]
        input[at, 4] = [value % 2**32].pack("N")
        input
      end

      def tamper_type(input)
        headers = header_offsets(input)
        return input if headers.empty?

        type = @random.rand(2).zero? ? KNOWN_TYPES[@random.rand(KNOWN_TYPES.size)] : @random.rand(256)
        input.setbyte(headers[@random.rand(headers.size)], type)
        input
      end

      def write_interesting(input)
        return input if input.bytesize < 4

        at = @random.rand(input.bytesize - 3)
        value = INTERESTING[@random.rand(INTERESTING.size)]
        if @random.rand(2).zero?
          input[at, 2] = [value % 2**16].pack("n")
        else
          input[at, 4] = [value].pack("N")
        end
        input
      end

      def cut(input)
        return input if input.bytesize < 2

        from = @random.rand(input.bytesize)
        to = from + @random.rand(input.bytesize - from)
        input.byteslice(0, from) + input.byteslice(to..)
      end

      # Offsets of the frame headers found by walking the declared lengths from byte 0.
      def header_offsets(input)
        offsets = []
        at = 0
        while at + 8 <= input.bytesize
          offsets << at
          at += 8 + input.unpack1("N", offset: at + 4)
        end
        offsets
      end
    end
  end
end
