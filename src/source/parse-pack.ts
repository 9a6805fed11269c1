export type PackUnit = 'pieces' | 'grams' | 'millilitres';

export interface PackSize {
  quantity: number;
  unit: PackUnit;
}

const PACK = /\bda\s+(\d+(?:,\d+)?)\s*(pezzi|pezzo|pz\.?|grammi|grammo|gr\.?|g|millilitri|ml)(?=\s|$|\.|,)/i;

const UNITS: Record<string, PackUnit> = {
  pezzi: 'pieces', pezzo: 'pieces', pz: 'pieces',
  grammi: 'grams', grammo: 'grams', gr: 'grams', g: 'grams',
  millilitri: 'millilitres', ml: 'millilitres',
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
