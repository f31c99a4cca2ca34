# Loads and initializes the Rails example application (required by config.ru).
require_relative "application"

Rails.application.initialize!
