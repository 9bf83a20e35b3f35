# Shop is a tiny storefront used as rdx's built-in example project.
module Shop
  VERSION = "1.0.0"

  # Raised when an order cannot be placed.
  class Error < StandardError; end

  class OutOfStock < Error; end

  def self.root
    File.expand_path("..", __dir__)
  end
end

require_relative "shop/pricing"
require_relative "shop/models/record"
require_relative "shop/models/product"
require_relative "shop/models/order"
