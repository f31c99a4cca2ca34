# The Rails example application: only the frameworks it uses (Active Record on sqlite3, Action Controller,
# Action View), no asset pipeline, logs to stdout, and nothing written inside the app directory except the
# sqlite database when DATABASE_PATH is not set.
require_relative "boot"

require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require_relative "example_settings"

module RailsExample
  class Application < Rails::Application
    config.load_defaults 6.1

    config.eager_load = ENV["RAILS_ENV"] == "production"
    config.cache_classes = ENV["RAILS_ENV"] == "production"
    config.consider_all_requests_local = ENV["RAILS_ENV"] != "production"
    config.action_view.form_with_generates_remote_forms = false

    ExampleSettings.apply(config)
  end
end
