module Shop
  module Models
    Line = Struct.new(:product, :quantity) do
      def total
        product.price_with_tax * quantity
      end
    end

    # An order groups lines and checks stock.
    class Order < Record
      include Enumerable

      def initialize(id:)
        super
        @lines = []
      end

      def add(product, quantity = 1)
        raise OutOfStock, product.name if quantity > 99
        @lines << Line.new(product, quantity)
        self
      end

      def each(&block)
        @lines.each(&block)
      end

      def total
        sum(&:total)
      end
    end
  end
end
