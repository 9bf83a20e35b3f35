import { Money, formatMoney } from "./money";

/** The cart shown in the page header. */
export class CartBadge {
  constructor(private items: Money[]) {}

  /** The total of every item, formatted. */
  total(): string {
    const cents = this.items.reduce((sum, m) => sum + m.cents, 0);
    return formatMoney({ cents, currency: "EUR" });
  }
}
