# frozen_string_literal: true

# A slot that runs in its own Ractor (the `ractors` setting, docs/RACK.md "Ractors"): the same Worker::Slot
# redial loop and Worker::Link, but inside a Ractor, so its Ruby code runs in parallel with the other
# slots' instead of taking turns on one lock. The worker holds this object in the main Ractor and drives
# it with the same #start / #stop / #close_if_idle / #join / #done? as a thread Slot.
#
# What crosses into the Ractor is shareable: the app (Ractor.make_shareable'd by the worker at boot), a
# shareable lowlevel_error_handler or nil, and a frozen Hash of Integers and Strings. The Ractor builds its
# own env prototype (rack.errors is the Ractor's own $stderr, fd 2) and logs to that $stderr. #stop and
# #close_if_idle are messages to a thread inside the Ractor, which calls the Slot's method there; the
# Ractor's end is reported to the worker's RactorExits.

require_relative "slot"

module PumaPlus
  class Worker
    class RactorSlot
      # Messages the main Ractor sends to a slot's Ractor: the Slot methods they call there.
      MESSAGES = %i[stop close_if_idle].freeze

      # +app+: a shareable Rack app. +lowlevel_error_handler+: shareable or nil. +link+: a Hash of
      # Link.new keywords whose values are Integers, Strings or nil (worker_index:, path:, generation:).
      # +multithread+, +multiprocess+: for the env prototype. +exits+: the worker's RactorExits.
      def initialize(app:, thread_index:, multithread:, multiprocess:, exits:, lowlevel_error_handler: nil, **link)
        @thread_index = thread_index
        @exits = exits
        @id = exits.next_id
        @arguments = Ractor.make_shareable(
          link.merge(thread_index: thread_index, multithread: multithread, multiprocess: multiprocess, exit_id: @id)
        )
        @app = app
        @lowlevel_error_handler = lowlevel_error_handler
      end

      attr_reader :thread_index

      # Starts the Ractor. Returns self.
      def start
        @ractor = Ractor.new(@app, @lowlevel_error_handler, @arguments,
                             name: "puma-plus link #{@thread_index}") do |app, handler, arguments|
          options = arguments.dup
          multithread = options.delete(:multithread)
          multiprocess = options.delete(:multiprocess)
          exit_id = options.delete(:exit_id)
          begin
            prototype = RackEnv.prototype(multithread: multithread, multiprocess: multiprocess,
                                          slot_kind: RackEnv::RACTOR)
            slot = Slot.new(app: app, prototype: prototype, log: $stderr, lowlevel_error_handler: handler, **options)
            Thread.new do
              loop do
                message = Ractor.receive
                slot.public_send(message) if MESSAGES.include?(message)
              end
            end
            slot.run
          rescue Exception => e # rubocop:disable Lint/RescueException -- a slot must never vanish silently
            Log.exception("worker #{options[:worker_index]} thread #{options[:thread_index]}: Ractor failed", e, $stderr)
          ensure
            Ractor.main.send(exit_id)
          end
          nil
        end
        self
      end

      def stop
        tell(:stop)
      end

      def close_if_idle
        tell(:close_if_idle)
      end

      def join
        @exits.wait(@id)
      end

      def done?
        @exits.ended?(@id)
      end

      private

      def tell(message)
        @ractor.send(message)
      rescue Ractor::ClosedError
        nil # the Ractor has ended
      end
    end
  end
end
