# frozen_string_literal: true

# HELLO (0x01), the first frame on every link: a worker thread, the shepherd or a worker's hijack
# connection introduces itself to the host, which answers WELCOME or GOAWAY(2). Nothing else may be sent
# before the answer.
#
# u16 version | u16 role | u32 pid | u32 generation | u32 worker index | u32 thread index | role 2 only:
# "request=<id>"
#
# Roles 0 and 1 send nothing after the fixed fields, and a receiver ignores what follows them there: the
# version is read from every HELLO, so a later version's may be longer.

require_relative "payload"

module PumaPlus
  module Wire
    class Hello < Payload.struct(FrameType::HELLO, :version, :role, :pid, :generation, :worker_index,
                                 :thread_index, :request_id)
      FORMAT = "nnNNNN"
      FIXED_SIZE = 20
      ROLE_WORKER = 0
      ROLE_SHEPHERD = 1
      # A worker's second connection carrying a hijacked client connection's bytes (docs/PROTOCOL.md,
      # "Hijack"); it names the request: "request=<puma_plus.request_id>".
      ROLE_HIJACK = 2
      ROLES = [ROLE_WORKER, ROLE_SHEPHERD, ROLE_HIJACK].freeze
      # A role-2 HELLO's tail: decimal, no sign, no leading zero, below 2^63.
      REQUEST = /\Arequest=([1-9][0-9]{0,18})\z/n
      MAX_REQUEST_ID = (1 << 63) - 1

      # Parses a HELLO payload; raises ProtocolError when it is shorter than its 20 fixed bytes, its role is
      # not 0, 1 or 2, or a role-2 HELLO does not end in exactly "request=<id>". request_id is 0 for roles 0
      # and 1.
      def self.decode(payload)
        Payload.at_least(payload, FIXED_SIZE)
        version, role, pid, generation, worker_index, thread_index = payload.unpack(FORMAT)
        raise ProtocolError, "role #{role}, 0, 1 or 2 required" unless ROLES.include?(role)

        new(version: version, role: role, pid: pid, generation: generation, worker_index: worker_index,
            thread_index: thread_index,
            request_id: role == ROLE_HIJACK ? request_id(payload.byteslice(FIXED_SIZE..)) : 0)
      end

      def self.request_id(tail)
        id = REQUEST.match(tail)&.[](1)&.to_i
        return id if id && id <= MAX_REQUEST_ID

        raise ProtocolError, 'role 2 names no request, "request=<id>" required'
      end
      private_class_method :request_id

      # The payload bytes: the fixed fields, then for role 2 the request it names.
      def payload
        fixed = [version, role, pid, generation, worker_index || 0, thread_index || 0].pack(FORMAT)
        role == ROLE_HIJACK ? fixed << "request=#{request_id}" : fixed
      end
    end
  end
end
