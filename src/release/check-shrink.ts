import { errors } from '../errors.ts';

/**
 * Refuses a build that drops more than `maxShare` of the previous release's products, unless
 * the operator allowed it: a truncated download must never become a release.
 */
export function checkShrink(previousProducts: number | null, newProducts: number, maxShare: number, allowShrink: boolean): void {
  if (previousProducts === null || previousProducts === 0 || allowShrink) return;
  const dropped = previousProducts - newProducts;
  if (dropped > 0 && dropped / previousProducts > maxShare) throw errors.shrinkRefused(dropped, previousProducts, maxShare);
}

/**
 * The same guard per category: a list that came back empty or truncated must not take a whole
 * category out of a live release while the others keep the total up.
 */
export function checkCategoryShrink(
  previous: Record<string, number> | null,
  current: Record<string, number>,
  maxShare: number,
  allowShrink: boolean,
): void {
  if (previous === null || allowShrink) return;
  for (const [category, before] of Object.entries(previous).sort()) {
    const dropped = before - (current[category] ?? 0);
    if (before > 0 && dropped > 0 && dropped / before > maxShare) throw errors.categoryShrinkRefused(category, dropped, before, maxShare);
  }
}

/** Products per category, the measure of the per-category guard. */
export function categoryCounts(products: { category: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const product of products) counts[product.category] = (counts[product.category] ?? 0) + 1;
  return counts;
}
