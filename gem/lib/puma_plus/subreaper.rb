# frozen_string_literal: true

# prctl(PR_SET_CHILD_SUBREAPER) for the shepherd under fork_worker (Linux 3.4+): a worker the mold forks
# (through a child that exits at once) is then re-parented to the shepherd, which waits for it and sees it
# exit exactly as it sees its own workers (docs/CONFIG.md, "fork_worker and the mold").

module PumaPlus
  module Subreaper
    PR_SET_CHILD_SUBREAPER = 36

    # Makes this process a child subreaper. Returns nil, or why it could not (then there is no mold).
    def self.become
      require "fiddle"
      long = Fiddle::TYPE_LONG
      prctl = Fiddle::Function.new(Fiddle.dlopen(nil)["prctl"], [Fiddle::TYPE_INT, long, long, long, long],
                                   Fiddle::TYPE_INT)
      return nil if prctl.call(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0).zero?

      "prctl(PR_SET_CHILD_SUBREAPER) failed (errno #{Fiddle.last_error})"
    rescue LoadError, Fiddle::DLError => e
      "no prctl here (#{e.message})"
    end
  end
end
