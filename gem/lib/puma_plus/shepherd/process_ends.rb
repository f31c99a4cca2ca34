# frozen_string_literal: true

# The pipes and socket between the shepherd and one worker process it is about to start (shepherd → worker),
# both ends of each until the fork, and the request count of its automatic refork. Made by
# Shepherd::Workers#new_worker_ends; the child's ends go to the fork (or, over the mold socket, to the mold),
# then the shepherd closes its copies of them.

module PumaPlus
  class Shepherd
    # +boot_reader+/+boot_writer+: the boot and check-in pipe; +extra_reader+/+extra_writer+: the extra-slots
    # pipe; +mold_link+/+mold_end+: the mold socket (fork_worker), else nil; +refork_after+: fork_worker's
    # count for this process, else nil; +park_reader+/+park_writer+: a spare's park pipe (Spares), else nil.
    ProcessEnds = Struct.new(:boot_reader, :boot_writer, :extra_reader, :extra_writer, :mold_link, :mold_end,
                             :refork_after, :park_reader, :park_writer, keyword_init: true) do
      # What the new process keeps: its ends, in the order the mold receives them.
      def childs_ends
        [boot_writer, extra_reader, mold_end, park_reader].compact
      end

      # What the shepherd keeps of a running process (a spare's park pipe aside).
      def shepherds_ends
        [boot_reader, extra_writer, mold_link].compact
      end

      def close_childs_ends
        childs_ends.each { |io| io.close unless io.closed? }
      end

      def close_shepherds_ends
        shepherds_ends.each { |io| io.close unless io.closed? }
      end
    end
  end
end
