# frozen_string_literal: true

# Tells the worker which of its Ractor slots have ended. Each slot's Ractor sends its id to the main
# Ractor as its last act; one thread of the main Ractor receives them, and #wait / #ended? answer from
# that. Why not Ractor#take per slot: on Ruby 3.1 two threads of one Ractor blocked in #take on two
# different Ractors lose a wake-up (one take never returns although its Ractor has ended), and a worker
# waits on many slots at once.

module PumaPlus
  class Worker
    class RactorExits
      def initialize
        @lock = Mutex.new
        @changed = ConditionVariable.new
        @ended = {}
        @next_id = 0
        @receiver = Thread.new do
          loop do
            id = Ractor.receive
            @lock.synchronize do
              @ended[id] = true
              @changed.broadcast
            end
          end
        end
      end

      # A new id for a slot's Ractor to send when it ends.
      def next_id
        @lock.synchronize { @next_id += 1 }
      end

      # Blocks until the Ractor that owns +id+ has sent it.
      def wait(id)
        @lock.synchronize { @changed.wait(@lock) until @ended[id] }
      end

      def ended?(id)
        @lock.synchronize { @ended.key?(id) }
      end
    end
  end
end
