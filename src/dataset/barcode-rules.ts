import type { BarcodeKind } from './model.ts';

export const MAX_CARTON_UNITS = 1000;

export type BarcodeRule =
  { ok: true; kind: BarcodeKind; units: number } | { ok: false; reason: 'invalid_kind' | 'invalid_units'; detail: string };

/**
 * The kind and units of a match with their defaults applied: a `pack` holds exactly 1 unit
 * (default), a `carton` 2 to 1000. `units` undefined means "not given".
 */
export function barcodeRule(kind: unknown, units: unknown): BarcodeRule {
  if (kind !== 'pack' && kind !== 'carton')
    return { ok: false, reason: 'invalid_kind', detail: `kind must be "pack" or "carton", not ${JSON.stringify(kind)}` };
  if (units === undefined) {
    return kind === 'pack'
      ? { ok: true, kind, units: 1 }
      : { ok: false, reason: 'invalid_units', detail: 'a carton needs units (2 to 1000)' };
  }
  if (typeof units !== 'number' || !Number.isInteger(units))
    return { ok: false, reason: 'invalid_units', detail: `units must be a whole number, not ${JSON.stringify(units)}` };
  if (kind === 'pack' && units !== 1) return { ok: false, reason: 'invalid_units', detail: 'a pack has exactly 1 unit' };
  if (kind === 'carton' && (units < 2 || units > MAX_CARTON_UNITS))
    return { ok: false, reason: 'invalid_units', detail: `a carton has 2 to ${MAX_CARTON_UNITS} units` };
  return { ok: true, kind, units };
}
