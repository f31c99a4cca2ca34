# Loads and initializes the Rails 7.2 example application (required by config.ru).
require_relative "application"

Rails.application.initialize!
