# What both Rails examples (this one and examples/rails72) set alike, whatever the Rails version: a secret
# without a credentials file, the log on stdout and an in-memory cache. Each config/application.rb applies it.
module ExampleSettings
  def self.apply(config)
    # An example app has no credentials file; a real deployment sets SECRET_KEY_BASE.
    config.secret_key_base = ENV.fetch("SECRET_KEY_BASE") { "puma-plus-example-" + "0" * 110 }

    config.logger = ActiveSupport::TaggedLogging.new(ActiveSupport::Logger.new($stdout))
    config.log_level = ENV.fetch("RAILS_LOG_LEVEL", "info").to_sym
    config.cache_store = :memory_store
  end
end
