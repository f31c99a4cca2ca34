# frozen_string_literal: true

# Makes the Rack app shareable between Ractors before a worker with `ractors` serves (docs/RACK.md,
# "Ractors"), or says exactly what stands in the way: the first object in the app's graph that cannot be
# made shareable, by its path from the app (e.g. "app.@app.@block"), and why.
#
# Ractor.make_shareable deep-freezes as it goes, and it freezes an IO too (a frozen $stderr can no longer
# be written to, in any Ractor). So the graph is walked first, children before parents: an IO is refused
# without touching it, and every other node is made shareable once its children are; the first that
# refuses is the culprit. After a failure part of the app is frozen; the worker stops booting anyway.
# A Sinatra app is refused where it sits in the graph: it is made of classes, which are shareable, yet every
# request would fail in a Ractor.

module PumaPlus
  module ShareableApp
    # Raised when the app cannot be shared; the message names the object and the reason.
    class Error < StandardError; end

    RAILS = "Rails applications are not Ractor-safe (class-level mutable state, autoloading, " \
            "thread-local connections); remove `ractors`"
    IO_REASON = "an IO cannot be shared between Ractors (freezing it would stop this process writing to it); " \
                "open it inside #call, or write to $stderr there"
    SINATRA = "a Sinatra app is not Ractor-safe (its settings are methods made from Procs of the main " \
              "Ractor: every request would be a 500); remove `ractors`"
    PROC_HINT = "a lambda or block (e.g. `run ->(env) { ... }` in config.ru) cannot run in a Ractor; " \
                "use an object with #call"

    # Returns +app+, deeply frozen and shareable. Raises Error naming what is not shareable by its path from
    # +name+ (the root's name in the message, e.g. "lowlevel_error_handler").
    def self.make(app, name: "app")
      raise Error, RAILS if defined?(::Rails::Application) && ::Rails.respond_to?(:application) && ::Rails.application

      path, reason = culprit(app, name, {})
      raise Error, "#{path}: #{reason}" if path

      Ractor.make_shareable(app)
    end

    # [path, reason] for the first object under +object+ that cannot be made shareable, or nil.
    def self.culprit(object, path, seen)
      return [path, SINATRA] if sinatra?(object)
      return nil if Ractor.shareable?(object) || seen.key?(object.__id__)

      seen[object.__id__] = true
      return [path, IO_REASON] if object.is_a?(IO)

      children(object).each do |child_path, child|
        found = culprit(child, "#{path}#{child_path}", seen)
        return found if found
      end
      Ractor.make_shareable(object)
      nil
    rescue Ractor::Error, ArgumentError, TypeError, FrozenError => e
      [path, describe(object, e)]
    end

    # [[path suffix, object], ...]: instance variables, Array elements, Hash keys and values, Struct members.
    def self.children(object)
      found = object.instance_variables.map { |name| [".#{name}", object.instance_variable_get(name)] }
      case object
      when Array then found + object.each_with_index.map { |element, i| ["[#{i}]", element] }
      when Hash then found + object.flat_map { |key, value| [["{#{key.inspect} key}", key], ["[#{key.inspect}]", value]] }
      when Struct then found + object.each_pair.map { |name, value| [".#{name}", value] }
      else found
      end
    end

    # A Sinatra application class (classic or modular), an instance of one, or the wrapper `App.new` returns.
    def self.sinatra?(object)
      return false unless defined?(::Sinatra::Base)

      (object.is_a?(Class) && object <= ::Sinatra::Base) || object.is_a?(::Sinatra::Base) ||
        (defined?(::Sinatra::Wrapper) && object.is_a?(::Sinatra::Wrapper))
    end

    def self.describe(object, error)
      if object.is_a?(Proc)
        "a Proc that is not shareable (#{error.message}); #{PROC_HINT}"
      else
        "#{object.class} cannot be shared between Ractors (#{error.message})"
      end
    end
    private_class_method :culprit, :children, :sinatra?, :describe
  end
end
