/** What a pack's quantity counts: the one list the model, the formats and the parser share. */
export const PACK_UNITS = ['pieces', 'grams', 'millilitres'] as const;
export type PackUnit = (typeof PACK_UNITS)[number];

export interface PackSize {
  quantity: number;
  unit: PackUnit;
}

// The real lists write "da 20 pezzi", but also "da5 pezzi", "da 20pezzi", "de 25 pezzi",
// "a 20 pezzi", "da 25 pezzo" and "da 6 sigari": the preposition and spacing vary, the number does not.
const PACK =
  /(?:^|\s)(?:da|de|a)\s*(\d+(?:,\d+)?)\s*(pezzi|pezzo|pz\.?|sigari|sigaretti|grammi|grammo|gr\.?|g|millilitri|ml)(?=\s|$|\.|,)/i;

const UNITS: Record<string, PackUnit> = {
  pezzi: 'pieces',
  pezzo: 'pieces',
  pz: 'pieces',
  sigari: 'pieces',
  sigaretti: 'pieces',
  grammi: 'grams',
  grammo: 'grams',
  gr: 'grams',
  g: 'grams',
  millilitri: 'millilitres',
  ml: 'millilitres',
};

/**
 * Reads the quantity and unit out of the authority's pack description
 * ("astuccio da 20 pezzi", "busta da 12,5 grammi", "flacone da 10 ml").
 * Returns null when the description does not say, so the raw text stays the reference.
 */
export function parsePack(description: string): PackSize | null {
  const match = PACK.exec(description);
  if (!match) return null;
  const unit = UNITS[match[2]!.toLowerCase().replace(/\.$/, '')];
  if (!unit) return null;
  return { quantity: Number(match[1]!.replace(',', '.')), unit };
}
