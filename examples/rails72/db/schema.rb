# The example's schema: one table of named rows. `if_not_exists` makes loading it at every boot harmless.
ActiveRecord::Schema[7.2].define(version: 1) do
  create_table :rows, if_not_exists: true do |t|
    t.string :name, null: false
    t.timestamps
  end
end
