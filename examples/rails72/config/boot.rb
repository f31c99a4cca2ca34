# Boots the Rails 7.2 example without Bundler: its gems are Debian trixie's, assembled for Ruby 3.3 by
# script/rails72, on the GEM_PATH bin/puma-plus sets. Asking for railties 7.2 here makes a run on another
# gem path (Debian 12's Rails 6.1) fail at once, naming the version it wants.
ENV["RAILS_ENV"] ||= ENV["RACK_ENV"] || "development"
gem "railties", "~> 7.2.0"
