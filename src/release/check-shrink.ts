import { errors } from '../errors.ts';

/** How far a release may shrink: at most `maxPercent` % of the previous products, unless the operator `allowed` more. */
export interface ShrinkGuard {
  maxPercent: number;
  allowed: boolean;
}

const beyond = (dropped: number, before: number, guard: ShrinkGuard) =>
  !guard.allowed && before > 0 && dropped > 0 && (dropped / before) * 100 > guard.maxPercent;

/**
 * Refuses a build that drops more of the previous release's products than the guard allows: a
 * truncated download must never become a release.
 */
export function checkShrink(previousProducts: number | null, newProducts: number, guard: ShrinkGuard): void {
  if (previousProducts === null) return;
  const dropped = previousProducts - newProducts;
  if (beyond(dropped, previousProducts, guard)) throw errors.shrinkRefused(dropped, previousProducts, guard.maxPercent);
}

/**
 * The same guard per category: a list that came back empty or truncated must not take a whole
 * category out of a live release while the others keep the total up.
 */
export function checkCategoryShrink(previous: Record<string, number> | null, current: Record<string, number>, guard: ShrinkGuard): void {
  if (previous === null) return;
  for (const [category, before] of Object.entries(previous).sort()) {
    const dropped = before - (current[category] ?? 0);
    if (beyond(dropped, before, guard)) throw errors.categoryShrinkRefused(category, dropped, before, guard.maxPercent);
  }
}

/** Products per category, the measure of the per-category guard. */
export function categoryCounts(products: { category: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const product of products) counts[product.category] = (counts[product.category] ?? 0) + 1;
  return counts;
}
