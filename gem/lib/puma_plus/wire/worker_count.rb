# frozen_string_literal: true

# WORKER_COUNT (0x07, host → shepherd, version 3): how many worker processes the shepherd should run (TTIN,
# TTOU, the fork actuator). A desired count, never a delta: the shepherd forks or retires workers until it
# runs that many; at least 1, since a shepherd cannot run none.
#
# u32 count (>= 1)

require_relative "desired_count"

module PumaPlus
  module Wire
    WorkerCount = DesiredCount.of(FrameType::WORKER_COUNT, 1)
  end
end
