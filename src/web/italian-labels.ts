import type { Category } from '../source/categories.ts';
import type { ReferenceUnit } from '../source/reference-unit.ts';
import { formatEuroCents } from '../util/format-euro.ts';

const longDate = new Intl.DateTimeFormat('it-IT', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });

/** "1 dicembre 2026": a calendar day (YYYY-MM-DD) as the pages write it (a table's date column keeps it on one line). */
export const italianDay = (iso: string): string => longDate.format(new Date(`${iso}T00:00:00Z`));

/** A no-break space: what keeps an amount with its unit on one line ("4,80 €"). */
export const NBSP = '\u00a0';

/** "4,80 €": cents as the pages write a price, amount and sign on one line. */
export const italianEuro = (cents: number): string => `${formatEuroCents(cents)}${NBSP}€`;

/** "2.833": a count with Italian thousands. */
export const italianCount = new Intl.NumberFormat('it-IT');

/** The categories as the authority's lists head them. */
export const CATEGORY_LABELS: Record<Category, string> = {
  cigarettes: 'Sigarette',
  cigars: 'Sigari',
  cigarillos: 'Sigaretti',
  rolling_tobacco: 'Trinciati per sigarette',
  other_smoking_tobacco: 'Altri tabacchi da fumo',
  snuff_chewing_tobacco: 'Tabacchi da fiuto e da mastico',
  heated_tobacco: 'Prodotti da inalazione senza combustione',
  inhalation_liquids: 'Liquidi da inalazione',
};

const UNIT_WORDS: Record<string, string> = { kg: 'kg', g: 'g', pieces: 'pz.', l: 'l', ml: 'ml' };

/** "€/kg conv.", "€/1.000 pz.": a reference unit as the lists write it (docs/dataset.md names the units). */
export function referenceUnitLabel(unit: ReferenceUnit): string {
  const match = /^(conventional_)?(?:(\d+)_)?([a-z]+)$/.exec(unit);
  if (!match) return unit;
  const quantity = match[2] ? `${new Intl.NumberFormat('it-IT').format(Number(match[2]))} ` : '';
  return `€/${quantity}${UNIT_WORDS[match[3]!] ?? match[3]}${match[1] ? ' conv.' : ''}`;
}
