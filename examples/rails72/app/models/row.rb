# One named row: what the example's form inserts and its index page lists.
class Row < ApplicationRecord
  validates :name, presence: true, length: { maximum: 200 }
end
