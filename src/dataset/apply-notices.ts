import { foldText } from '../source/category-names.ts';
import type { SourceNotice } from '../source/source-types.ts';
import type { Category } from '../source/categories.ts';
import { isPerKilogram } from '../source/reference-unit.ts';
import type { Product } from './model.ts';

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
  /** Rows that could not be applied, or applied over a different old price: for the operator. */
  problems: string[];
}

/**
 * Applies price-change notices in force on `date` on top of the lists in force, oldest first: each
 * row's new prices replace the product's, dated from the notice. A notice no newer than its
 * category's list is already part of that list. A row is matched by its tariff code or, where the
 * notice's table has none, by name and pack within the category; a row that matches no product
 * or several is reported and left out, never guessed.
 *
 * @returns the products (a new array; the input is not changed) and a report per notice.
 */
export function applyNotices(
  products: Product[],
  listDates: Map<Category, string>,
  notices: SourceNotice[],
  date: string,
): { products: Product[]; reports: NoticeReport[]; latest: string | null } {
  const result = products.map((product) => ({ ...product }));
  const byCode = new Map(result.map((product) => [product.admCode, product]));
  const byNamePack = new Map<string, Product[]>();
  for (const product of result) {
    const key = `${product.category}\u0000${foldText(product.name)}\u0000${foldText(product.pack)}`;
    byNamePack.set(key, [...(byNamePack.get(key) ?? []), product]);
  }

  const ordered = [...notices].sort(
    (a, b) => (a.effectiveFrom ?? '').localeCompare(b.effectiveFrom ?? '') || a.source.localeCompare(b.source),
  );
  const reports: NoticeReport[] = [];
  let latest: string | null = null;
  for (const notice of ordered) {
    const report: NoticeReport = {
      source: notice.source,
      effectiveFrom: notice.effectiveFrom,
      status: 'applied',
      applied: 0,
      problems: [],
    };
    reports.push(report);
    const effectiveFrom = notice.effectiveFrom;
    if (effectiveFrom === null) {
      report.status = 'undated';
      continue;
    }
    if (effectiveFrom > date) {
      report.status = 'pending';
      continue;
    }
    let superseded = 0;
    for (const change of notice.changes) {
      const listDate = listDates.get(change.category);
      if (listDate === undefined) {
        report.problems.push(`${change.where}: no ${change.category} list is in force, so there is nothing to change`);
        continue;
      }
      if (listDate >= effectiveFrom) {
        superseded++;
        continue;
      }
      let target: Product | undefined;
      if (change.admCode !== null) {
        target = byCode.get(change.admCode);
        if (!target || target.category !== change.category) {
          report.problems.push(
            `${change.where}: the tariff code ${change.admCode} is not in the ${change.category} list in force (${listDate})`,
          );
          continue;
        }
      } else {
        const matches = byNamePack.get(`${change.category}\u0000${foldText(change.name)}\u0000${foldText(change.pack)}`) ?? [];
        if (matches.length !== 1) {
          const which =
            matches.length === 0 ? 'no product' : `${matches.length} products (codes ${matches.map((m) => m.admCode).join(', ')})`;
          report.problems.push(
            `${change.where}: "${change.name}" ${change.pack} matches ${which} of the ${change.category} list in force; not applied`,
          );
          continue;
        }
        target = matches[0]!;
      }
      if (target.referenceUnit !== null && target.referenceUnit !== change.referenceUnit) {
        report.problems.push(
          `${change.where}: the notice's reference price is per ${change.referenceUnit}, the list's per ${target.referenceUnit}; applied all the same`,
        );
      } else if (target.referencePriceCents !== change.fromReferenceCents && target.referencePriceCents !== change.referencePriceCents) {
        report.problems.push(
          `${change.where}: the old reference price ${cents(change.fromReferenceCents)} differs from ${target.referencePriceCents === null ? 'none' : cents(target.referencePriceCents)} of code ${target.admCode}; applied all the same`,
        );
      }
      target.referencePriceCents = change.referencePriceCents;
      target.referenceUnit = change.referenceUnit;
      target.pricePerKgCents = isPerKilogram(change.referenceUnit) ? change.referencePriceCents : null;
      target.pricePerPackCents = change.pricePerPackCents;
      target.effectiveFrom = effectiveFrom;
      report.applied++;
    }
    if (report.applied === 0 && superseded > 0 && report.problems.length === 0) report.status = 'superseded';
    if (report.applied > 0 && (latest === null || effectiveFrom > latest)) latest = effectiveFrom;
  }
  return { products: result, reports, latest };
}

const cents = (value: number) => `${Math.floor(value / 100)},${String(value % 100).padStart(2, '0')}`;
