# Creates the example's one table at boot when the database does not have it yet, so a fresh sqlite file
# (a new DATABASE_PATH) needs no `db:migrate`. Runs once, in the process that loads the app.
Rails.application.config.after_initialize do
  ActiveRecord::Schema.verbose = false
  load Rails.root.join("db/schema.rb")
end
