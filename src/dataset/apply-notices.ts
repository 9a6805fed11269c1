import { publicDocumentName } from '../source/document-name.ts';
import { foldText } from '../source/category-names.ts';
import type { NoticeChange, SourceNotice } from '../source/source-types.ts';
import type { Category } from '../source/categories.ts';
import { isPerKilogram } from '../source/reference-unit.ts';
import type { AnnouncedPrice, Product } from './model.ts';

/** What became of one notice in a build. */
export interface NoticeReport {
  source: string;
  effectiveFrom: string | null;
  /**
   * applied: on top of the list in force; superseded: the list in force is as recent or newer;
   * pending: dated after the build's day; undated: neither the notice nor the page that links it
   * states its date (never guessed: given with `tariff build --notice-date`).
   */
  status: 'applied' | 'superseded' | 'pending' | 'undated';
  applied: number;
  /** Rows of a pending notice matched to a product: the dataset's announced prices. */
  announced: number;
  /** Rows that could not be applied, or applied over a different old price: for the operator. */
  problems: string[];
}

/** Products of the tariff in force, found by code and by category, name and pack (tables without codes). */
interface ProductIndex {
  byCode: Map<number, Product>;
  byNamePack: Map<string, Product[]>;
}

const namePackKey = (category: Category, name: string, pack: string) => `${category}\u0000${foldText(name)}\u0000${foldText(pack)}`;

function indexProducts(products: Product[]): ProductIndex {
  const byNamePack = new Map<string, Product[]>();
  for (const product of products) {
    const key = namePackKey(product.category, product.name, product.pack);
    byNamePack.set(key, [...(byNamePack.get(key) ?? []), product]);
  }
  return { byCode: new Map(products.map((product) => [product.admCode, product])), byNamePack };
}

/** The product a notice row changes, or why it changes none (`superseded`: the list in force already carries it). */
function matchRow(
  change: NoticeChange,
  effectiveFrom: string,
  index: ProductIndex,
  listDates: Map<Category, string>,
): Product | { problem: string } | 'superseded' {
  const listDate = listDates.get(change.category);
  if (listDate === undefined) return { problem: `${change.where}: no ${change.category} list is in force, so there is nothing to change` };
  if (listDate >= effectiveFrom) return 'superseded';
  if (change.admCode !== null) {
    const target = index.byCode.get(change.admCode);
    if (!target || target.category !== change.category) {
      return { problem: `${change.where}: the tariff code ${change.admCode} is not in the ${change.category} list in force (${listDate})` };
    }
    return target;
  }
  const matches = index.byNamePack.get(namePackKey(change.category, change.name, change.pack)) ?? [];
  if (matches.length === 1) return matches[0]!;
  const which = matches.length === 0 ? 'no product' : `${matches.length} products (codes ${matches.map((m) => m.admCode).join(', ')})`;
  return {
    problem: `${change.where}: "${change.name}" ${change.pack} matches ${which} of the ${change.category} list in force; not applied`,
  };
}

/** Where the notice's old reference price disagrees with the product's: said, and applied all the same. */
function priceMismatch(change: NoticeChange, target: Product): string | null {
  if (target.referenceUnit !== null && target.referenceUnit !== change.referenceUnit) {
    return `${change.where}: the notice's reference price is per ${change.referenceUnit}, the list's per ${target.referenceUnit}; applied all the same`;
  }
  if (target.referencePriceCents !== change.fromReferenceCents && target.referencePriceCents !== change.referencePriceCents) {
    return `${change.where}: the old reference price ${cents(change.fromReferenceCents)} differs from ${target.referencePriceCents === null ? 'none' : cents(target.referencePriceCents)} of code ${target.admCode}; applied all the same`;
  }
  return null;
}

/** The row's new prices, as the product will carry them from `effectiveFrom`. */
const announcedPrice = (change: NoticeChange, target: Product, effectiveFrom: string, source: string): AnnouncedPrice => ({
  admCode: target.admCode,
  effectiveFrom,
  pricePerPackCents: change.pricePerPackCents,
  pricePerKgCents: isPerKilogram(change.referenceUnit) ? change.referencePriceCents : null,
  referencePriceCents: change.referencePriceCents,
  referenceUnit: change.referenceUnit,
  source: publicDocumentName(source),
});

function takePrice(target: Product, price: AnnouncedPrice): void {
  target.referencePriceCents = price.referencePriceCents;
  target.referenceUnit = price.referenceUnit;
  target.pricePerKgCents = price.pricePerKgCents;
  target.pricePerPackCents = price.pricePerPackCents;
  target.effectiveFrom = price.effectiveFrom;
}

/**
 * Applies price-change notices in force on `date` on top of the lists in force, oldest first: each
 * row's new prices replace the product's, dated from the notice. A notice no newer than its
 * category's list is already part of that list. A row is matched by its tariff code or, where the
 * notice's table has none, by name and pack within the category; a row that matches no product
 * or several is reported and left out, never guessed. The rows of notices whose day has not come
 * are matched the same way and returned as `announced`, so a till can switch at midnight.
 *
 * @returns the products (a new array; the input is not changed), a report per notice, and the
 * announced prices (by day, then code).
 */
export function applyNotices(
  products: Product[],
  listDates: Map<Category, string>,
  notices: SourceNotice[],
  date: string,
): { products: Product[]; reports: NoticeReport[]; latest: string | null; announced: AnnouncedPrice[] } {
  const result = products.map((product) => ({ ...product }));
  const index = indexProducts(result);
  const ordered = [...notices].sort(
    (a, b) => (a.effectiveFrom ?? '').localeCompare(b.effectiveFrom ?? '') || a.source.localeCompare(b.source),
  );
  const reports: NoticeReport[] = [];
  const announced: AnnouncedPrice[] = [];
  let latest: string | null = null;
  for (const notice of ordered) {
    const { effectiveFrom } = notice;
    const report: NoticeReport = { source: notice.source, effectiveFrom, status: 'applied', applied: 0, announced: 0, problems: [] };
    reports.push(report);
    if (effectiveFrom === null) {
      report.status = 'undated';
      continue;
    }
    const pending = effectiveFrom > date;
    if (pending) report.status = 'pending';
    let superseded = 0;
    for (const change of notice.changes) {
      const target = matchRow(change, effectiveFrom, index, listDates);
      if (target === 'superseded') superseded++;
      else if ('problem' in target) report.problems.push(target.problem);
      else if (pending) {
        announced.push(announcedPrice(change, target, effectiveFrom, notice.source));
        report.announced++;
      } else {
        const mismatch = priceMismatch(change, target);
        if (mismatch) report.problems.push(mismatch);
        takePrice(target, announcedPrice(change, target, effectiveFrom, notice.source));
        report.applied++;
      }
    }
    if (pending) continue;
    if (report.applied === 0 && superseded > 0 && report.problems.length === 0) report.status = 'superseded';
    if (report.applied > 0 && (latest === null || effectiveFrom > latest)) latest = effectiveFrom;
  }
  announced.sort((a, b) => a.effectiveFrom.localeCompare(b.effectiveFrom) || a.admCode - b.admCode || a.source.localeCompare(b.source));
  return { products: result, reports, latest, announced };
}

const cents = (value: number) => `${Math.floor(value / 100)},${String(value % 100).padStart(2, '0')}`;
