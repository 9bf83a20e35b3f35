"""Printing receipts for orders."""

from .money import format_cents


class Printer:
    """Prints one receipt line per order line."""

    def __init__(self, width: int = 40) -> None:
        self.width = width

    def line(self, label: str, cents: int) -> str:
        """One receipt line: the label, padded, then the price."""
        price = format_cents(cents)
        return label.ljust(self.width - len(price)) + price
