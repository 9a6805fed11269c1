const euro = new Intl.NumberFormat('it-IT', { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: true });

/** 123450 → "1.234,50": the way the authority and the shops write prices. */
export function formatEuroCents(cents: number): string {
  return euro.format(cents / 100);
}
