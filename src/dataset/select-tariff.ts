import { errors } from '../errors.ts';
import type { Category } from '../source/categories.ts';
import type { ParsedSource, SourceList, SourceProduct } from '../source/source-types.ts';
import { applyNotices, type NoticeReport } from './apply-notices.ts';
import { parsePack } from '../source/parse-pack.ts';
import type { Product } from './model.ts';

export interface TariffInForce {
  tariffDate: string;
  products: Product[];
  /** Lists dated after the build date: they wait for their day (notices waiting are in `notices`). */
  pending: { category: string; effectiveFrom: string; source: string }[];
  /** What became of each price-change notice. */
  notices: NoticeReport[];
}

/**
 * Chooses the tariff in force on `date`: for each category, the list with the latest effective
 * date on or before that day (the authority publishes one list per category, each with its own
 * date), then the price-change notices in force on top of them. The tariff date is the latest of
 * the chosen lists' and applied notices' dates. Lists of the same category and day from several
 * documents are merged; a tariff code listed twice must carry the same data.
 */
export function selectTariff(sources: ParsedSource | SourceList[], date: string): TariffInForce {
  const { lists, notices } = Array.isArray(sources) ? { lists: sources, notices: [] } : sources;
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
      for (const item of list.products) {
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
  return { tariffDate, products, pending, notices: applied.reports };
}

function toProduct(item: SourceProduct, list: SourceList): Product {
  const size = parsePack(item.pack);
  return {
    admCode: item.admCode,
    name: item.name,
    category: list.category,
    pack: item.pack,
    packQuantity: size?.quantity ?? null,
    packUnit: size?.unit ?? null,
    pricePerKgCents: item.pricePerKgCents,
    pricePerPackCents: item.pricePerPackCents,
    effectiveFrom: list.effectiveFrom,
  };
}

function sameProduct(a: Product, b: Product): boolean {
  return (Object.keys(a) as (keyof Product)[]).every((key) => a[key] === b[key]);
}
