# Base class of the example's models.
class ApplicationRecord < ActiveRecord::Base
  self.abstract_class = true
end
