import type { ListedProduct, RecordedRelease } from '../../src/history/price-history.ts';

/** A small deterministic generator: the same seed, the same life. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(n) * 86_400_000).toISOString().slice(0, 10);

/**
 * Releases over a life: prices moving, names changing, products leaving (with and without a
 * `product_removed` row), coming back, new ones, new lists restating most prices under a new date;
 * sometimes two releases on one day; tariff dates
 * that never go back, as versions name them.
 */
export function life(seed: number, count: number, size = 30): RecordedRelease[] {
  const next = random(seed);
  let listed: ListedProduct[] = Array.from({ length: size }, (_, i) => ({
    admCode: 100 + i,
    name: `PRODOTTO ${i}`,
    category: 'cigarettes',
    pack: 'astuccio da 20 pezzi',
    pricePerPackCents: 500 + i,
    referencePriceCents: 25_000 + i,
    referenceUnit: 'conventional_kg',
    effectiveFrom: day(0),
  }));
  const gone: ListedProduct[] = [];
  const releases: RecordedRelease[] = [];
  let date = 0;
  let sequence = 1;
  for (let r = 0; r < count; r += 1) {
    if (next() < 0.7) {
      date += 1 + Math.floor(next() * 3);
      sequence = 1;
    } else sequence += 1;
    const tariffDate = day(date);
    const removed: number[] = [];
    listed = listed.flatMap((p) => {
      const roll = next();
      if (roll < 0.05) {
        gone.push(p);
        if (next() < 0.5) removed.push(p.admCode);
        return [];
      }
      if (roll < 0.2) return [{ ...p, pricePerPackCents: p.pricePerPackCents + 10, effectiveFrom: tariffDate }];
      if (roll < 0.23) return [{ ...p, name: `${p.name} X` }];
      if (roll < 0.25) return [{ ...p, pricePerPackCents: p.pricePerPackCents - 10 }];
      return [p];
    });
    // A new list now and then: every product dated its day, most prices as they were.
    if (next() < 0.3) listed = listed.map((p) => ({ ...p, effectiveFrom: tariffDate }));
    if (gone.length > 0 && next() < 0.3) listed.push({ ...gone.splice(0, 1)[0]!, effectiveFrom: tariffDate });
    if (next() < 0.2)
      listed.push({ ...listed[0]!, admCode: 1_000 + r, name: `NUOVO ${r}`, effectiveFrom: tariffDate, referenceUnit: null });
    releases.push({
      version: `${tariffDate.replaceAll('-', '')}.${sequence}`,
      tariffDate,
      products: [...listed].sort((a, b) => next() - 0.5 || a.admCode - b.admCode),
      changes: removed.map((admCode) => ({ kind: 'product_removed' as const, admCode })),
    });
  }
  return releases;
}
