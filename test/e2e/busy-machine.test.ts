import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_LISTS } from '../../fixtures/adm-real-lists.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { parsePdfSource } from '../../src/source/pdf/parse-pdf-source.ts';
import type { ParsedSource } from '../../src/source/source-types.ts';
import type { AuthorityServer } from '../helpers/authority-server.ts';
import { REAL, releaseFromSite, standInAuthoritySite } from '../helpers/authority-site.ts';
import { readWithPdftotext } from '../helpers/pdftotext-reading.ts';
import { REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// Every core kept busy twelve times over, at the command's own priority: a load of about 25 on two
// cores. With four loops a core a limit of 1.5 s of the clock still passed; at this load it failed.
const LOOPS = 12 * availableParallelism();

// Each loop ends by itself once the test's process is gone or after ten minutes, whichever is first
// (bounded, whatever happens to the test), and is killed by the test when it is done.
const LOOP = `const parent = Number(process.argv[1]); const end = Date.now() + 600000;
for (let i = 1; ; i++) if ((i & 0xfffff) === 0 && (process.ppid !== parent || Date.now() > end)) break;`;

const rowsOf = (parsed: ParsedSource) =>
  parsed.lists.flatMap((list) => list.products.map((p) => [p.admCode, p.name, p.pack, p.referencePriceCents, p.pricePerPackCents]));

let loops: ChildProcess[] = [];
let authority: AuthorityServer;
let expectedCount: number;
/** Each list as read on the machine before it was made busy. */
const idle = new Map<string, unknown[]>();

beforeAll(async () => {
  for (const name of REAL_LISTS) idle.set(name, rowsOf(await parsePdfSource(readFileSync(join(REPO, 'fixtures/adm', name)), name)));
  ({ authority, expectedCount } = await standInAuthoritySite());
  loops = Array.from({ length: LOOPS }, () => spawn(process.execPath, ['-e', LOOP, String(process.pid)], { stdio: 'ignore' }));
}, 120_000);

afterAll(async () => {
  for (const loop of loops) loop.kill('SIGKILL');
  await authority?.close();
});

describe(`the real lists on a machine kept busy (${LOOPS} processor-bound loops, ${availableParallelism()} cores)`, () => {
  it('reads each of the six real lists row for row as on an idle machine, and as pdftotext does', async () => {
    const busy = await Promise.all(
      REAL_LISTS.map(async (name) => [name, rowsOf(await parsePdfSource(readFileSync(join(REPO, 'fixtures/adm', name)), name))] as const),
    );
    // The loops were running all along.
    expect(loops.every((loop) => loop.exitCode === null && loop.signalCode === null)).toBe(true);
    for (const [name, rows] of busy) {
      expect(rows, name).toEqual(idle.get(name));
      expect(rows.length, name).toBe(readWithPdftotext(join(REPO, 'fixtures/adm', name)).rows.length);
    }
  }, 600_000);

  it('releases through the stand-in authority: every list published, every product in the release', async () => {
    const dataDir = await tempDir();
    const run = await releaseFromSite(authority, dataDir, '2026-11-30');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ status: 'published', version: '20261101.1' });
    for (const file of Object.keys(REAL))
      expect(summary.fetch.find((r: { url: string }) => r.url.endsWith(`/documents/${file}`)).status, file).toBe('changed');
    const dataset = await openDatasetFile('json', readFileSync(join(dataDir, 'bucket', 'releases', '20261101.1', 'dataset.json.gz')));
    expect(dataset.products).toHaveLength(expectedCount);
    expect(loops.every((loop) => loop.exitCode === null && loop.signalCode === null)).toBe(true);
  }, 600_000);
});
