import { errors } from '../errors.ts';
import type { Category } from '../source/categories.ts';
import type { ParsedSource, SourceList, SourceProduct } from '../source/source-types.ts';
import { applyNotices, type NoticeReport } from './apply-notices.ts';
import { parsePack } from '../source/parse-pack.ts';
import { isPerKilogram } from '../source/reference-unit.ts';
import type { AnnouncedPrice, Product } from './model.ts';

export interface TariffInForce {
  tariffDate: string;
  products: Product[];
  /** Lists dated after the build date: they wait for their day (notices waiting are in `notices`). */
  pending: { category: string; effectiveFrom: string; source: string }[];
  /** What became of each price-change notice. */
  notices: NoticeReport[];
  /** The new prices of notices whose day has not come (by day, then code). */
  announced: AnnouncedPrice[];
  /** Codes a list prints twice with different data: the row kept and the one left out. */
  duplicates: DuplicateCode[];
}

/** A tariff code one list prints twice with different data (the authority corrects it in a later list). */
export interface DuplicateCode {
  admCode: number;
  source: string;
  kept: { name: string; pack: string; where: string };
  left: { name: string; pack: string; where: string };
  /** Why the kept row won: it continues the previous release's product, or it comes first. */
  reason: 'continues the previous release' | 'printed first';
}

/**
 * Chooses the tariff in force on `date`: for each category, the list with the latest effective
 * date on or before that day (the authority publishes one list per category, each with its own
 * date), then the price-change notices in force on top of them. The tariff date is the latest of
 * the chosen lists' and applied notices' dates. Lists of the same category and day from several
 * documents are merged; a tariff code listed twice must carry the same data.
 */
export function selectTariff(
  sources: Pick<ParsedSource, 'lists' | 'notices'> | SourceList[],
  date: string,
  previous: readonly Product[] = [],
): TariffInForce {
  const { lists, notices } = Array.isArray(sources) ? { lists: sources, notices: [] } : sources;
  const previousByCode = new Map(previous.map((product) => [product.admCode, product]));
  const duplicates: DuplicateCode[] = [];
  if (lists.length === 0) throw errors.tariffEmpty('the sources hold no category list');

  const inForce = new Map<Category, SourceList[]>();
  const pending: TariffInForce['pending'] = [];
  for (const list of lists) {
    if (list.effectiveFrom > date) {
      pending.push({ category: list.feedCategory, effectiveFrom: list.effectiveFrom, source: list.source });
      continue;
    }
    const chosen = inForce.get(list.category);
    if (!chosen || chosen[0]!.effectiveFrom < list.effectiveFrom) inForce.set(list.category, [list]);
    else if (chosen[0]!.effectiveFrom === list.effectiveFrom) chosen.push(list);
  }
  if (inForce.size === 0) {
    throw errors.noTariffInForce(date, lists.map((l) => l.effectiveFrom).sort()[0]!);
  }

  const byCode = new Map<number, { product: Product; where: string }>();
  let tariffDate = '';
  for (const group of inForce.values()) {
    for (const list of group) {
      if (list.effectiveFrom > tariffDate) tariffDate = list.effectiveFrom;
      for (const item of withoutDuplicates(list, previousByCode, duplicates)) {
        const product = toProduct(item, list);
        const seen = byCode.get(product.admCode);
        if (seen && !sameProduct(seen.product, product)) {
          throw errors.tariffConflict(item.where, `tariff code ${product.admCode} is also listed at ${seen.where} with different data`);
        }
        if (!seen) byCode.set(product.admCode, { product, where: item.where });
      }
    }
  }
  if (byCode.size === 0) {
    throw errors.tariffEmpty(`no product is listed in the tariff in force on ${date}`);
  }
  const listDates = new Map<Category, string>([...inForce].map(([category, group]) => [category, group[0]!.effectiveFrom]));
  const applied = applyNotices(
    [...byCode.values()].map((entry) => entry.product),
    listDates,
    notices,
    date,
  );
  if (applied.latest !== null && applied.latest > tariffDate) tariffDate = applied.latest;
  const products = applied.products.sort((a, b) => a.admCode - b.admCode);
  pending.sort((a, b) => a.effectiveFrom.localeCompare(b.effectiveFrom) || a.category.localeCompare(b.category));
  return { tariffDate, products, pending, notices: applied.reports, announced: applied.announced, duplicates };
}

/**
 * A list's rows with each code once: where a code is printed twice with different data, the row
 * that continues the previous release's product under that code (same name and pack) is kept,
 * else the first; the other is reported, and the build goes on (the authority corrects such slips
 * in its next list, and a category must not stop updating for a month over one row).
 */
function withoutDuplicates(list: SourceList, previous: Map<number, Product>, duplicates: DuplicateCode[]): SourceProduct[] {
  const byCode = new Map<number, SourceProduct>();
  const continues = (item: SourceProduct) => {
    const before = previous.get(item.admCode);
    return before !== undefined && before.name === item.name && before.pack === item.pack;
  };
  for (const item of list.products) {
    const seen = byCode.get(item.admCode);
    if (!seen) {
      byCode.set(item.admCode, item);
      continue;
    }
    if (sameRow(seen, item)) continue;
    const [kept, left] = continues(item) && !continues(seen) ? [item, seen] : [seen, item];
    byCode.set(item.admCode, kept);
    const side = (row: SourceProduct) => ({ name: row.name, pack: row.pack, where: row.where });
    duplicates.push({
      admCode: item.admCode,
      source: list.source,
      kept: side(kept),
      left: side(left),
      reason: continues(kept) ? 'continues the previous release' : 'printed first',
    });
  }
  return [...byCode.values()];
}

const sameRow = (a: SourceProduct, b: SourceProduct) =>
  a.name === b.name && a.pack === b.pack && a.referencePriceCents === b.referencePriceCents && a.pricePerPackCents === b.pricePerPackCents;

function toProduct(item: SourceProduct, list: SourceList): Product {
  const size = parsePack(item.pack);
  return {
    admCode: item.admCode,
    name: item.name,
    category: list.category,
    pack: item.pack,
    packQuantity: size?.quantity ?? null,
    packUnit: size?.unit ?? null,
    pricePerKgCents: isPerKilogram(list.referenceUnit) ? item.referencePriceCents : null,
    pricePerPackCents: item.pricePerPackCents,
    effectiveFrom: list.effectiveFrom,
    referencePriceCents: item.referencePriceCents,
    referenceUnit: list.referenceUnit,
  };
}

function sameProduct(a: Product, b: Product): boolean {
  return (Object.keys(a) as (keyof Product)[]).every((key) => a[key] === b[key]);
}
