// Money as the browser shows it.
export interface Money {
  cents: number;
  currency: string;
}

/** Formats an amount for display. */
export function formatMoney(amount: Money): string {
  return `${(amount.cents / 100).toFixed(2)} ${amount.currency}`;
}
