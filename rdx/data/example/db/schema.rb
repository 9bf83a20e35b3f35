# The database the Rails models read (app/models/): each column below becomes the reader,
# writer, predicate and dirty-tracking methods of the model whose table it is.
ActiveRecord::Schema.define(version: 2024_05_01_120000) do
  create_table "reviews", force: :cascade do |t|
    t.references :product, null: false
    t.integer "status", default: 0, null: false
    t.integer "rating"
    t.text "body"
    t.timestamps
  end
end
