module Shop
  # Money arithmetic shared by everything that has a price.
  module Pricing
    TAX_RATE = 0.2

    def price_with_tax
      price * (1 + TAX_RATE)
    end

    module_function

    # Formats cents as a display string.
    def format(cents)
      "$%.2f" % (cents / 100.0)
    end
  end

  # Something that can be compared by price.
  module Comparable
    include ::Comparable

    def <=>(other)
      price <=> other.price
    end
  end
end
