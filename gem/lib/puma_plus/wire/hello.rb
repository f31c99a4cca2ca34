# frozen_string_literal: true

# HELLO (0x01), the first frame on every link: a worker thread or the shepherd introduces itself to the
# host, which answers WELCOME or GOAWAY(2). Nothing else may be sent before the answer.
#
# u16 version | u16 role | u32 pid | u32 generation | u32 worker index | u32 thread index | capabilities

require_relative "payload"

module PumaPlus
  module Wire
    class Hello < Struct.new(:version, :role, :pid, :generation, :worker_index, :thread_index,
                             :capabilities, keyword_init: true)
      include Payload
      TYPE = FrameType::HELLO
      FORMAT = "nnNNNN"
      FIXED_SIZE = 20
      ROLE_WORKER = 0
      ROLE_SHEPHERD = 1
      # A worker's second connection carrying a hijacked client connection's bytes (docs/PROTOCOL.md,
      # "Hijack"); capabilities name the request: "request=<puma_plus.request_id>".
      ROLE_HIJACK = 2

      # Parses a HELLO payload; raises ProtocolError when it is shorter than its 20 fixed bytes.
      def self.decode(payload)
        if payload.bytesize < FIXED_SIZE
          raise ProtocolError, "HELLO payload of #{payload.bytesize} bytes, at least #{FIXED_SIZE} required"
        end

        version, role, pid, generation, worker_index, thread_index = payload.unpack(FORMAT)
        new(version: version, role: role, pid: pid, generation: generation, worker_index: worker_index,
            thread_index: thread_index, capabilities: payload.byteslice(FIXED_SIZE..))
      end

      # The payload bytes. capabilities: space-separated ASCII tokens (may be empty).
      def payload
        [version, role, pid, generation, worker_index || 0, thread_index || 0].pack(FORMAT) +
          (capabilities || "").b
      end
    end
  end
end
