# Boots the Rails example without Bundler: every gem comes from Debian's packages (ruby-rails 6.1,
# ruby-sqlite3), which RubyGems already has on its load path.
ENV["RAILS_ENV"] ||= ENV["RACK_ENV"] || "development"
