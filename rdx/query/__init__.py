"""Read-only questions over a resolved graph: public views and name search."""
