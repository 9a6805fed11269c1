import { describeChangeSummary, summariseChanges } from '../dataset/summarise-changes.ts';
import type { BuiltRelease } from './built-release.ts';

/** What a build has to say besides its version: unchanged content, barcodes left out, lists waiting. */
export function describeBuild(built: BuiltRelease, where: string): string[] {
  const { manifest } = built;
  const lines = [
    built.unchanged
      ? `unchanged: the content equals the previous release ${manifest.version}; ${where} holds it`
      : `built ${manifest.version}: tariff in force from ${manifest.tariffDate}, ${manifest.counts.products} products, ${manifest.counts.barcodes} barcodes in ${where}`,
  ];
  if (!built.unchanged) {
    lines.push(
      built.changesSince
        ? `changes since ${built.changesSince}: ${describeChangeSummary(summariseChanges(built.changes))}`
        : 'no changes recorded: nothing to compare with (a first release, or the previous one could not be read)',
    );
  }
  for (const d of built.duplicates)
    lines.push(
      `code ${d.admCode} printed twice in ${d.source}: kept "${d.kept.name}" ${d.kept.pack} (${d.reason}), left out "${d.left.name}" ${d.left.pack} (${d.left.where})`,
    );
  if (built.skippedBarcodes.length > 0)
    lines.push(`left out ${built.skippedBarcodes.length} barcode(s) whose tariff code is not in the tariff in force`);
  for (const list of built.pending) lines.push(`waiting: ${list.category} list takes effect on ${list.effectiveFrom} (${list.source})`);
  for (const notice of built.notices) {
    if (notice.status === 'undated')
      lines.push(
        `not applied: the price-change notice states no effective date, nor did its page (${notice.source}); give it with --notice-date`,
      );
    else if (notice.status === 'pending')
      lines.push(
        `waiting: price-change notice takes effect on ${notice.effectiveFrom}, its ${notice.announced} price(s) announced in the dataset (${notice.source})`,
      );
    else if (notice.status === 'superseded')
      lines.push(`notice of ${notice.effectiveFrom} is already part of the list in force (${notice.source})`);
    else lines.push(`applied the notice of ${notice.effectiveFrom} to ${notice.applied} product(s) (${notice.source})`);
    for (const problem of notice.problems.slice(0, 20)) lines.push(`notice: ${problem}`);
    if (notice.problems.length > 20) lines.push(`notice: … and ${notice.problems.length - 20} more`);
  }
  return lines;
}
