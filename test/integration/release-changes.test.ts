import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Barcode, Dataset, Product } from '../../src/dataset/model.ts';
import { applyChanges } from '../../src/dataset/release-changes.ts';
import { buildRelease } from '../../src/pipeline/build-release.ts';
import type { BuiltRelease } from '../../src/pipeline/built-release.ts';
import type { SourceDocument } from '../../src/source/source-types.ts';
import { gunzip, gzipDeterministic } from '../../src/release/gzip.ts';
import { sha256Hex } from '../../src/util/digests.ts';
import { FORMATS, type Format } from '../../src/release/manifest.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { verifyRelease } from '../../src/release/verify-release.ts';
import { writeReleaseDir } from '../../src/release/write-release-dir.ts';
import { formatEuroCents } from '../../src/util/format-euro.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The authority's real cigar list is the first release; the next four are that list changed the
// ways the authority changes it, written as XML lists of the same category.
const REAL_LIST: SourceDocument = {
  name: 'listino-sigari-2026-07-22.pdf',
  bytes: readFileSync(new URL('../../fixtures/adm/listino-sigari-2026-07-22.pdf', import.meta.url)),
};
const PACKS = ['da 5 pezzi', 'astuccio da 10 pezzi', 'scatola da 25 pezzi', 'da 2 pezzi'];
const DATES = ['01/08/2026', '15/09/2026', '01/11/2026', '22/11/2026'];
const GTINS = ['8000000000019', '8000000000026', '8000000000033', '8000000000040', '8000000000057', '80000001'];

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function cigarList(date: string, products: Product[]): SourceDocument {
  const rows = products.map(
    (p) =>
      `<prodotto><codice>${p.admCode}</codice><denominazione>${escapeXml(p.name)}</denominazione><confezione>${escapeXml(p.pack)}</confezione>` +
      `<prezzoKgConvenzionale>${formatEuroCents(p.pricePerKgCents!)}</prezzoKgConvenzionale><prezzoConfezione>${formatEuroCents(p.pricePerPackCents)}</prezzoConfezione></prodotto>`,
  );
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<tariffa ente="Agenzia delle Dogane e dei Monopoli" inVigoreDal="${date}">\n<categoria codice="sigari">\n${rows.join('\n')}\n</categoria>\n</tariffa>\n`;
  return { name: `sigari-${date.replace(/\//g, '-')}.xml`, bytes: new TextEncoder().encode(xml) };
}

/** One step of the authority's life: prices moved, products renamed, re-packed, withdrawn, listed; barcodes matched. */
const stepArb = fc.record({
  repriced: fc.uniqueArray(fc.nat(2820), { maxLength: 40 }),
  priceDelta: fc.integer({ min: -300, max: 500 }).filter((d) => d !== 0),
  renamed: fc.uniqueArray(fc.nat(2820), { maxLength: 5 }),
  repacked: fc.uniqueArray(fc.nat(2820), { maxLength: 5 }),
  removed: fc.uniqueArray(fc.nat(2820), { maxLength: 10 }),
  added: fc.nat(5),
  barcodes: fc.uniqueArray(fc.record({ gtin: fc.constantFrom(...GTINS), at: fc.nat(2820), carton: fc.boolean() }), {
    selector: (b) => b.gtin,
    maxLength: 4,
  }),
});

type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never;

function nextList(products: Product[], step: Step, n: number): Product[] {
  const at = (i: number) => i % products.length;
  const next = products.map((p) => ({ ...p }));
  for (const i of step.repriced) {
    const p = next[at(i)]!;
    p.pricePerPackCents = Math.max(1, p.pricePerPackCents + step.priceDelta);
    p.pricePerKgCents = Math.max(1, p.pricePerKgCents! + step.priceDelta * 10);
    p.referencePriceCents = p.pricePerKgCents;
  }
  for (const i of step.renamed) next[at(i)]!.name = `${next[at(i)]!.name} NUOVO ${n}`;
  for (const [k, i] of step.repacked.entries()) next[at(i)]!.pack = PACKS[(k + n) % PACKS.length]!;
  const removed = new Set(step.removed.map((i) => next[at(i)]!.admCode));
  const kept = next.filter((p) => !removed.has(p.admCode));
  const top = Math.max(...products.map((p) => p.admCode));
  for (let k = 1; k <= step.added; k += 1) {
    kept.push({ ...kept[0]!, admCode: top + k, name: `NOVITÀ ${n}.${k}`, pricePerPackCents: 1000 + k, pricePerKgCents: 100_000 + k });
  }
  return kept;
}

describe('changes carried by a sequence of releases starting from the real list', () => {
  it("applied to each release's rows, give the next release's rows, in each of the three formats", async () => {
    const scratchDir = await tempDir();
    const build = (
      sources: SourceDocument[],
      barcodes: Barcode[],
      date: string,
      previous: BuiltRelease | null,
      previousRows: Awaited<ReturnType<typeof openDatasetFile>> | null,
    ) =>
      buildRelease({
        sources,
        barcodes,
        date,
        baseUrl: 'https://tariff.example/v1',
        previous: previous?.manifest ?? null,
        previousDataset: previousRows,
        allowShrink: true,
        maxShrinkPercent: 20,
        now: () => new Date(`${date}T05:00:00Z`),
        scratchDir,
      });
    const openAll = async (release: BuiltRelease) => {
      const opened = await Promise.all(FORMATS.map((format) => openDatasetFile(format, release.files[format])));
      return Object.fromEntries(FORMATS.map((format, i) => [format, opened[i]!])) as Record<Format, Dataset>;
    };
    const first = await build([REAL_LIST], [], '2026-07-22', null, null);
    const firstOpened = await openAll(first);
    const firstRows = firstOpened.json;
    expect(firstRows.products).toHaveLength(2821);
    expect(first.changesSince).toBeNull();
    expect(firstRows.changes).toEqual([]);

    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 4, maxLength: 4 }), async (steps) => {
        let previous = first;
        let previousRows = firstRows;
        // Each release is opened once per format: as the next step's "after", then as its "before".
        let openedBefore = firstOpened;
        for (const [n, step] of steps.entries()) {
          const products = nextList(previousRows.products, step, n + 1);
          const barcodes = step.barcodes.map((b) => ({
            barcode: b.gtin,
            admCode: products[b.at % products.length]!.admCode,
            kind: b.carton ? ('carton' as const) : ('pack' as const),
            units: b.carton ? 10 : 1,
          }));
          const date = `2026-${DATES[n]!.slice(3, 5)}-${DATES[n]!.slice(0, 2)}`;
          const built = await build([cigarList(DATES[n]!, products)], barcodes, date, previous, previousRows);
          expect(built.changesSince).toBe(previous.manifest.version);
          const openedAfter = await openAll(built);
          for (const format of FORMATS) {
            const [before, after] = [openedBefore[format], openedAfter[format]];
            expect(after.changesSince).toBe(previous.manifest.version);
            expect(after.changes).toEqual(built.changes);
            expect(applyChanges(before, after.changes)).toEqual({ products: after.products, barcodes: after.barcodes });
          }
          previous = built;
          previousRows = openedAfter.json;
          openedBefore = openedAfter;
        }
      }),
      { numRuns: 3 },
    );
    // Fifteen builds of the real cigar list: 10 s on an idle machine, over a minute with every core
    // busy twelve times over. The guard is against a hang, not a speed claim.
  }, 600_000);

  it('are the same rows in the three formats, which tariff verify checks', async () => {
    const scratchDir = await tempDir();
    const first = await buildRelease({
      sources: [REAL_LIST],
      barcodes: [],
      date: '2026-07-22',
      baseUrl: 'https://tariff.example/v1',
      previous: null,
      allowShrink: false,
      maxShrinkPercent: 20,
      now: () => new Date('2026-07-22T05:00:00Z'),
      scratchDir,
    });
    const firstRows = await openDatasetFile('json', first.files.json);
    const products = firstRows.products.map((p, i) => (i < 3 ? { ...p, pricePerPackCents: p.pricePerPackCents + 20 } : p));
    const second = await buildRelease({
      sources: [cigarList('01/08/2026', products)],
      barcodes: [],
      date: '2026-08-01',
      baseUrl: 'https://tariff.example/v1',
      previous: first.manifest,
      previousDataset: firstRows,
      allowShrink: false,
      maxShrinkPercent: 20,
      now: () => new Date('2026-08-01T05:00:00Z'),
      scratchDir,
    });
    // Three price rises; every other product is only re-dated by the new list.
    expect(second.changes.filter((c) => c.kind === 'price_changed')).toHaveLength(3);
    expect(second.changes.filter((c) => c.kind === 'redated')).toHaveLength(2818);
    const dir = `${await tempDir()}/release`;
    await writeReleaseDir(second, dir);
    expect(await verifyRelease(dir)).toMatchObject({ ok: true, problems: [] });

    // A docdb file whose change rows say something else is caught, even with a matching manifest.
    const docdb = gunzip(readFileSync(`${dir}/dataset.docdb.gz`))
      .toString('utf8')
      .replace('"kind":"price_changed"', '"kind":"renamed"');
    const tampered = gzipDeterministic(Buffer.from(docdb));
    writeFileSync(`${dir}/dataset.docdb.gz`, tampered);
    const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8'));
    manifest.files.docdb = { ...manifest.files.docdb, sha256: sha256Hex(tampered), size: tampered.length };
    writeFileSync(`${dir}/manifest.json`, JSON.stringify(manifest));
    expect((await verifyRelease(dir)).problems).toEqual([
      expect.stringMatching(/^dataset\.docdb\.gz: its rows differ from dataset\.json\.gz \(first at changes\[\d+\]\)/),
    ]);
  });
});
