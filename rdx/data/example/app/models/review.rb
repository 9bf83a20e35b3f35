# A customer's review of a product: a Rails model, whose macros define the methods rdx lists.
class Review < ApplicationRecord
  belongs_to :product, class_name: "Shop::Models::Product"
  has_many :votes
  scope :recent, -> { where(created_at: 1.week.ago..) }
  enum status: [:pending, :published]
  delegate :name, to: :product, prefix: true

  # Publishes the review once.
  def publish!
    published! unless published?
  end
end
