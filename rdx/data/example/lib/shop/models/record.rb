module Shop
  module Models
    # Base class of every persisted model.
    class Record
      @registry = {}

      class << self
        attr_reader :registry

        def create(**attrs)
          new(**attrs).tap { |r| registry[r.id] = r }
        end
      end

      attr_reader :id

      def initialize(id:)
        @id = id
      end

      private

      def validate!
        raise Shop::Error, "invalid #{self.class}" unless id
      end
    end
  end
end
