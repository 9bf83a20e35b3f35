module Shop
  module Models
    # A product on sale.
    class Product < Record
      include Pricing
      include Shop::Comparable

      attr_accessor :name, :price

      def initialize(id:, name:, price:)
        super(id: id)
        @name = name
        @price = price
      end

      def label
        "#{name} (#{Pricing.format(price_with_tax)})"
      end
      alias_method :to_s, :label
    end

    Item = Product
  end
end
