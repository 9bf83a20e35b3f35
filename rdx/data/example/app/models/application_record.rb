# The base of the application's models, as a Rails application has it.
class ApplicationRecord < ActiveRecord::Base
  self.abstract_class = true
end
