"""Money formatting shared by the receipt printers."""

CURRENCY = "EUR"


def format_cents(cents: int) -> str:
    """Formats cents as a display string."""
    return f"{cents / 100:.2f} {CURRENCY}"
