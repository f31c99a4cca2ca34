# Fills the Rails example's database (examples/rails, at DATABASE_PATH) with N rows for the Rails cells of
# `bench/run lowrate` (its `setup` line), so the rows page every request GETs reads and renders N rows. It
# loads the example app itself, so the schema and the model are the example's own. Runs once, before any
# server under test starts: `RAILS_ENV=production DATABASE_PATH=... ruby bench/rails_rows.rb 20`.
require_relative "../examples/rails/config/environment"

count = Integer(ARGV.fetch(0) { abort "usage: ruby bench/rails_rows.rb ROWS" })
Row.delete_all
count.times { |i| Row.create!(name: "row #{i + 1}") }
puts "#{Row.count} rows in #{ActiveRecord::Base.connection_db_config.database}"
