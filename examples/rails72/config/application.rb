# The Rails 7.2 example application: the Rails 6.1 example (examples/rails) on Rails 7.2's defaults. Only
# the frameworks it uses (Active Record on sqlite3, Action Controller, Action View), no asset pipeline, logs
# to stdout, and nothing written inside the app directory except the sqlite database when DATABASE_PATH is
# not set. In production the whole app is loaded at boot (eager_load), before the workers fork.
require_relative "boot"

require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require_relative "../../rails/config/example_settings"

module Rails72Example
  class Application < Rails::Application
    config.load_defaults 7.2

    production = ENV["RAILS_ENV"] == "production"
    config.eager_load = production
    config.enable_reloading = !production
    config.consider_all_requests_local = !production

    ExampleSettings.apply(config)
  end
end
