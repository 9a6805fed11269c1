import { XMLValidator } from 'fast-xml-parser';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { releaseChanges } from '../../src/dataset/release-changes.ts';
import { buildRelease } from '../../src/pipeline/build-release.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { verifyRelease } from '../../src/release/verify-release.ts';
import { writeReleaseDir } from '../../src/release/write-release-dir.ts';
import { releaseFeed } from '../../src/web/releases/release-feed.ts';
import { releaseNotes } from '../../src/web/releases/release-notes.ts';
import { releaseDetailPage } from '../../src/web/releases/release-pages.ts';
import { feed } from '../helpers/feed.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// What a feed labelled ISO-8859-1 makes of Windows' "…" (byte 0x85), a terminal escape, a
// right-to-left override and two noncharacters: each in a product name, as the authority might print it.
const HOSTILE = ['AURORA&#133;ROSSA', 'BLU\u001b[2J', '\u202EGOLD 5,70', 'ZETA\uFFFE\uFFFF'];

async function hostileRelease() {
  const products = HOSTILE.map((name, i): [string, string, string, string, string] => [
    String(1001 + i),
    name,
    'astuccio da 20 pezzi',
    '300,00',
    '6,00',
  ]);
  return buildRelease({
    sources: [{ name: 'hostile.xml', bytes: Buffer.from(feed('2026-11-01', { sigarette: products })) }],
    barcodes: [],
    date: '2026-11-22',
    baseUrl: 'https://tariff.example/v1',
    previous: null,
    allowShrink: false,
    maxShrinkPercent: 20,
    now: () => new Date('2026-11-22T05:00:00Z'),
    scratchDir: await tempDir(),
  });
}

describe('a product name carrying control, separator, bidi or noncharacter code points', () => {
  it('is written as one clean line in all three formats, which verify', async () => {
    const built = await hostileRelease();
    const dir = join(await tempDir(), 'release');
    await writeReleaseDir(built, dir);
    await expect(verifyRelease(dir)).resolves.toMatchObject({ ok: true, problems: [] });
    const dataset = await openDatasetFile('docdb', built.files.docdb);
    expect(dataset.products.map((product) => product.name)).toEqual(['AURORA ROSSA', 'BLU [2J', 'GOLD 5,70', 'ZETA']);
  });

  it('never reaches the Atom feed or the public page raw, even from a release published before the rule', async () => {
    const built = await hostileRelease();
    const dataset = await openDatasetFile('json', built.files.json);
    // A release published before names were cleaned: its change rows carry the raw names.
    const raw = ['AURORA\u0085ROSSA', 'BLU\u001b[2J', '\u202EGOLD 5,70', 'ZETA\uFFFE\uFFFF'];
    const empty = { ...dataset, products: dataset.products.slice(0, 0) };
    const changes = releaseChanges(empty, dataset).map((change, i) => ({ ...change, name: raw[i]! }));
    expect(changes.map((change) => change.kind)).toEqual(Array(4).fill('product_added'));
    const notes = releaseNotes(built.manifest, { changesSince: '20261001.1', changes });
    const atom = releaseFeed([notes], 'https://tariff.example', '2026-11-22T06:00:00+01:00');
    expect(XMLValidator.validate(atom)).toBe(true);
    const page = releaseDetailPage(notes, false);
    expect(page).toContain('GOLD 5,70');
    expect(page).toContain('AURORAROSSA');
    for (const character of ['\u0085', '\u001b', '\u202E', '\uFFFE', '\uFFFF']) {
      expect(atom).not.toContain(character);
      expect(page).not.toContain(character);
    }
  });
});
