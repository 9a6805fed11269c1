const ITALIAN_AMOUNT = /^(?:€\s*)?(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?(?:\s*€)?$/;

/**
 * Parses a euro amount written the Italian way ("5,50", "1.234,00", "€ 12") into integer cents.
 * Returns null for anything else, including a dot used as decimal separator ("5.50"), which
 * would otherwise be read as a thousands separator and turn €5.50 into €550.
 *
 * @example parseEuroCents('1.234,5') === 123450
 */
export function parseEuroCents(text: string): number | null {
  const match = ITALIAN_AMOUNT.exec(text.trim());
  if (!match) return null;
  const euros = Number(match[1]!.replaceAll('.', ''));
  const cents = Number((match[2] ?? '0').padEnd(2, '0'));
  const total = euros * 100 + cents;
  return Number.isSafeInteger(total) ? total : null;
}
