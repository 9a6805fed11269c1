/**
 * The unit of a list's reference price, as its header writes it after "€/": `conventional_kg`
 * ("€/kg conv.le"), `kg` ("€/kg"), `1000_pieces` ("€/1.000 pz."), and so on for any quantity and
 * unit (`g`, `pieces`, `l`, `ml`): a quantity other than 1 comes first, `conventional_` marks the
 * conventional kilogram of the excise rules. docs/dataset.md lists them.
 */
export type ReferenceUnit = string;

const UNITS: [RegExp, string][] = [
  [/^(kg|kilo\w*|chilo\w*)$/, 'kg'],
  [/^(g|gr|grammi|grammo)$/, 'g'],
  [/^(pz|pezzi|pezzo|sticks?)$/, 'pieces'],
  [/^(l|lt|litri|litro)$/, 'l'],
  [/^(ml|millilitri|millilitro)$/, 'ml'],
];

// "€/kg conv.le", "€/Kg", "€/1.000 pz.", "Da €/Kg conv.le", "€ / 10 ml"
const REFERENCE = /€\s*\/\s*(\d{1,3}(?:[.\s]\d{3})+|\d+)?\s*([a-z]+)\.?\s*(conv\S*)?/i;

/** The reference unit a header names, or null when it names none ("€/conf.ne" is the pack price, not a reference). */
export function referenceUnitOf(header: string): ReferenceUnit | null {
  const match = REFERENCE.exec(header.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());
  if (!match) return null;
  const unit = UNITS.find(([pattern]) => pattern.test(match[2]!))?.[1];
  if (!unit) return null;
  const quantity = match[1] ? Number(match[1].replace(/[.\s]/g, '')) : 1;
  if (!(quantity > 0)) return null;
  const conventional = match[3] && unit === 'kg' ? 'conventional_' : '';
  return `${conventional}${quantity === 1 ? '' : `${quantity}_`}${unit}`;
}

/** Whether prices in this unit are per kilogram (real or conventional): only those go in `pricePerKgCents`. */
export function isPerKilogram(unit: ReferenceUnit | null): boolean {
  return unit === 'kg' || unit === 'conventional_kg';
}
