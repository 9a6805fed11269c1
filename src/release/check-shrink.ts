import { errors } from '../errors.ts';

export const DEFAULT_MAX_SHRINK = 0.2;

/**
 * Refuses a build that drops more than `maxShare` of the previous release's products, unless
 * the operator allowed it: a truncated download must never become a release.
 */
export function checkShrink(previousProducts: number | null, newProducts: number, maxShare: number, allowShrink: boolean): void {
  if (previousProducts === null || previousProducts === 0 || allowShrink) return;
  const dropped = previousProducts - newProducts;
  if (dropped > 0 && dropped / previousProducts > maxShare) throw errors.shrinkRefused(dropped, previousProducts, maxShare);
}
