# frozen_string_literal: true

# Puma's plugin API as puma-plus provides it (PumaPlus::PluginLauncher puts this directory first on the load
# path): Puma::Plugin.create registers the class a plugin file defines under the file's name, and
# in_background queues a block the launcher starts on its own thread after every plugin has started.

require "puma/const"
require "puma/dsl"

module Puma
  class Plugin
    # Defines a plugin class from the block and registers it under the name of the file that called this
    # (".../puma/plugin/NAME.rb").
    def self.create(&block)
      path = caller_locations(1, 1).first.path
      name = path[%r{puma/plugin/([^/]+)\.rb\z}, 1] or raise ArgumentError, "#{path} is not puma/plugin/NAME.rb"
      plugin = Class.new(self)
      plugin.class_eval(&block)
      Plugins.register(name, plugin)
    end

    def in_background(&block)
      Plugins.add_background(block)
    end

    def workers_supported?
      true
    end
  end

  # The registry of loaded plugin classes and their queued background blocks.
  module Plugins
    @classes = {}
    @background = []

    def self.register(name, plugin)
      @classes[name] = plugin
    end

    def self.find(name)
      @classes.fetch(name.to_s) { raise ArgumentError, "no puma plugin #{name} was loaded" }
    end

    def self.add_background(block)
      @background << block
    end

    # Starts each queued block on its own thread (once).
    def self.fire_background
      @background.each_with_index do |block, i|
        Thread.new do
          Thread.current.name = "plugin bg #{i}"
          block.call
        end
      end
      @background.clear
    end
  end
end
