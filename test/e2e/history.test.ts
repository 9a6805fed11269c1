import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWithPdftotext } from '../helpers/pdftotext-reading.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { readBucketJson, readBucketKey } from '../helpers/bucket-folder.ts';

const LIST_2023 = join(REPO, 'fixtures/adm/listino-sigari-2023-10-31.pdf');
const LIST_2026 = join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf');
/** AMMEZZATI TOSCANO GARIBALDI: in both real cigar lists, at another price in each. */
const CODE = 684;

/** The product's row as poppler's pdftotext reads the list: a reading that shares no code with the builder. */
function printed(path: string, admCode: number) {
  const row = readWithPdftotext(path).rows.find((r) => r.admCode === admCode);
  expect(row, `${admCode} in ${path}`).toBeDefined();
  return row!;
}

describe('tariff history', () => {
  it('starts a product’s history at the archived lists and extends it with each published release', async () => {
    const dataDir = await tempDir();
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
    const old = printed(LIST_2023, CODE);
    const now = printed(LIST_2026, CODE);
    expect(old.pricePerPackCents).not.toBe(now.pricePerPackCents);

    // Newest first: the order the lists are read in does not matter.
    const imported = await cli(['history', 'import', LIST_2026, LIST_2023]);
    expect(imported).toMatchObject({ status: 0, stderr: '' });
    expect(imported.stdout).toMatch(
      /^history: read listino-sigari-2026-07-22\.pdf \(2026-07-22, 2821 products\), listino-sigari-2023-10-31\.pdf \(2023-10-31, \d+ products\); \d+ products in folder /,
    );

    const out = join(dataDir, 'build');
    expect((await cli(['build', '--source', LIST_2026, '--date', '2026-07-22', '--out', out])).status).toBe(0);
    expect((await cli(['publish', out])).status).toBe(0);

    const shown = await cli(['history', String(CODE), '--json']);
    expect(shown.status).toBe(0);
    const history = JSON.parse(shown.stdout);
    expect(history).toMatchObject({ admCode: CODE, name: now.name, pack: now.pack, category: 'cigars', withdrawn: null });
    expect(history.steps).toEqual([
      {
        from: '2023-10-31',
        lastSeen: '2023-10-31',
        pricePerPackCents: old.pricePerPackCents,
        referencePriceCents: old.referencePriceCents,
        referenceUnit: 'conventional_kg',
        release: null,
        source: 'listino-sigari-2023-10-31.pdf',
      },
      {
        from: '2026-07-22',
        lastSeen: '2026-07-22',
        pricePerPackCents: now.pricePerPackCents,
        referencePriceCents: now.referencePriceCents,
        referenceUnit: 'conventional_kg',
        // Read from the 2026 list first; the release that then carried the price is linked to it.
        release: '20260722.1',
        source: 'listino-sigari-2026-07-22.pdf',
      },
    ]);

    const human = await cli(['history', String(CODE)]);
    expect(human.stdout).toContain('684 AMMEZZATI TOSCANO GARIBALDI (da 5 pezzi, cigars)');
    expect(human.stdout).toMatch(/2023-10-31\s+4,50 €\s+180,00 € per conventional_kg\s+2023-10-31\s+listino-sigari-2023-10-31\.pdf/);
    expect(human.stdout).toMatch(/2026-07-22\s+4,80 €.*release 20260722\.1/);

    // Publishing the same release again records nothing new.
    expect((await cli(['publish', out])).status).toBe(0);
    expect(JSON.parse((await cli(['history', String(CODE), '--json'])).stdout).steps).toHaveLength(2);
  });

  it('says what is wrong with a code or a file, with the exit status of each', async () => {
    const dataDir = await tempDir();
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
    expect(await cli(['history', '12a'])).toMatchObject({ status: 2, stderr: expect.stringContaining('12a is not a tariff code') });
    const unknown = await cli(['history', '999999']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('Tariff code 999999 is in no release or list recorded in folder');
    const notice = await cli(['history', 'import', join(REPO, 'fixtures/adm/avviso-prezzi-2026-12-01.pdf')]);
    expect(notice.status).toBe(1);
    expect(notice.stderr).toContain('no price list was found in them');
    expect(existsSync(join(dataDir, 'bucket', 'history'))).toBe(false);
  });

  it('refuses a list dated after today, unless --date names that day, and leaves the history as it was', async () => {
    const dataDir = await tempDir();
    const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--data-dir', dataDir], { env });
    expect((await cli(['history', 'import', LIST_2023])).status).toBe(0);
    const before = readBucketKey(join(dataDir, 'bucket'), 'history/manifest.json');
    // On 21 July 2026 the list of the 22nd has not happened yet.
    const early = { SOURCE_DATE_EPOCH: String(Date.parse('2026-07-21T10:00:00Z') / 1000) };
    const refused = await cli(['history', 'import', LIST_2026, '--json'], early);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('its list takes effect on 2026-07-22, after 2026-07-21: its prices have not happened yet');
    expect(JSON.parse(refused.stdout).error.code).toBe('history_ahead');
    expect(readBucketKey(join(dataDir, 'bucket'), 'history/manifest.json')!.equals(before!)).toBe(true);
    // Named on purpose, it is taken.
    expect((await cli(['history', 'import', LIST_2026, '--date', '2026-07-22'], early)).status).toBe(0);
  });

  it('takes an imported list back out, byte for byte, and stores a file name clean', async () => {
    const dataDir = await tempDir();
    const bucket = join(dataDir, 'elsewhere');
    // --bucket after the subcommand is the subcommand's: the history goes where it says.
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir, '--bucket', bucket]);
    expect((await cli(['history', 'import', LIST_2023])).status).toBe(0);
    expect(existsSync(join(dataDir, 'bucket'))).toBe(false);
    // The history as a reader takes it: an import writes it whole, as a checkpoint with no release after it.
    const history = () => {
      const manifest = readBucketJson(bucket, 'history/manifest.json');
      expect(manifest.segments).toEqual([]);
      return { sha256: manifest.checkpoint.sha256, file: readFileSync(join(bucket, 'history', manifest.checkpoint.file)) };
    };
    const before = history();

    // A file name with a line break and a right-to-left override, as a careless download may be named.
    const odd = join(await tempDir(), 'listino\nsigari\u202e2026.pdf');
    copyFileSync(LIST_2026, odd);
    expect((await cli(['history', 'import', odd])).status).toBe(0);
    const shown = JSON.parse((await cli(['history', String(CODE), '--json'])).stdout);
    expect(shown.steps.map((step: { source: string }) => step.source)).toContain('listino sigari 2026.pdf');
    expect((await cli(['history', String(CODE)])).stdout.split('\n').filter((line) => line.includes('2026.pdf'))).toHaveLength(1);
    // The same bytes again: skipped.
    expect((await cli(['history', 'import', odd])).stdout).toContain('(2026-07-22, imported before)');

    const dry = await cli(['history', 'remove', 'listino sigari 2026.pdf']);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(
      /^dry run: would remove listino sigari 2026\.pdf \(2026-07-22, sha256 [0-9a-f]{12}…\): \d+ product\(s\) as before the import \(run again with --apply\)\n$/,
    );
    expect(history().sha256).not.toBe(before.sha256);
    const removed = await cli(['history', 'remove', 'listino sigari 2026.pdf', '--apply']);
    expect(removed.status).toBe(0);
    expect(history()).toEqual(before);
    expect((await cli(['history', 'remove', 'listino sigari 2026.pdf'])).stderr).toContain(
      'No imported document is named listino sigari 2026.pdf',
    );
  });
});
