import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REAL_LISTS } from '../../fixtures/adm-real-lists.ts';
import { DAMAGE_KINDS, damagedCopies } from '../../fixtures/damaged-pdfs.ts';
import type { ParsedSource } from '../../src/source/source-types.ts';
import { parsePdfSource } from '../../src/source/pdf/parse-pdf-source.ts';
import { REPO } from '../helpers/run-cli.ts';

/** Copies of each kind of damage per list: 9 kinds × 8 × 6 lists, several hundred copies. */
const PER_KIND = 8;

/** Every product of a document, as the release takes it (order aside: a dataset is keyed by code). */
const rowsOf = (parsed: ParsedSource) =>
  parsed.lists.map((list) => ({
    category: list.feedCategory,
    date: list.effectiveFrom,
    rows: list.products.map((p) => JSON.stringify([p.admCode, p.name, p.pack, p.referencePriceCents, p.pricePerPackCents])).sort(),
  }));

/** `work` on every item, `size` at a time, the results in the items' order. */
async function inBatches<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += size) results.push(...(await Promise.all(items.slice(at, at + size).map(work))));
  return results;
}

describe('damaged copies of the real lists (seeded): none is read as whole with rows other than the list’s', () => {
  it(`${PER_KIND} copies of each of ${DAMAGE_KINDS.length} kinds of damage of each real list: refused, read with problems, or read identical`, async () => {
    expect(REAL_LISTS).toHaveLength(6);
    const tally = { refused: 0, problems: 0, identical: 0 };
    const different: string[] = [];
    for (const name of REAL_LISTS) {
      const clean = readFileSync(`${REPO}/fixtures/adm/${name}`);
      const expected = rowsOf(await parsePdfSource(clean, name));
      const copies = damagedCopies(clean, PER_KIND);
      // A few at a time, as a release reads its documents: the readers and the checker are shared.
      const outcomes = await inBatches(copies, 4, (copy) =>
        parsePdfSource(copy.bytes, name).then(
          (parsed) => (JSON.stringify(rowsOf(parsed)) === JSON.stringify(expected) ? 'identical' : 'different'),
          (error: { code?: string }) => {
            // Any other failure (a bug, not a verdict on the document) fails the test with its stack.
            if (!error.code?.startsWith('source_')) throw error;
            return error.code === 'source_invalid' ? 'problems' : 'refused';
          },
        ),
      );
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome === 'different') different.push(`${name}: ${copies[i]!.kind} (${copies[i]!.what})`);
        else tally[outcome]++;
      }
    }
    // The figure docs/source-format.md gives ("Damaged documents").
    console.log(`damaged corpus: ${JSON.stringify(tally)}, read as whole with other rows: ${different.length}`);
    expect(different).toEqual([]);
    expect(tally.refused + tally.problems + tally.identical).toBeGreaterThan(300);
  }, 600_000);
});
