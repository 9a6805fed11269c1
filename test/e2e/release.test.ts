import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { readBucketJson } from '../helpers/bucket-folder.ts';
import { describeLocal, describeS3 } from '../helpers/s3-step.ts';

const SAMPLE = join(REPO, 'fixtures/sample/tariff');
const LISTS = ['altri-tabacchi-2026-06-01.xml', 'liquidi-2026-06-01.xml', 'sigarette-2026-11-01.xml', 'sigarette-2026-12-01.xml'];

let authority: AuthorityServer;
let dataDir: string;
beforeEach(async () => {
  authority = await new AuthorityServer().start();
  dataDir = await tempDir();
  // The future cigarette list is published early, as the authority does.
  for (const name of LISTS) authority.lists.set(`/${name}`, { body: readFileSync(join(SAMPLE, name)) });
});
afterEach(async () => {
  await authority.close();
});

const release = (date: string, extra: string[] = [], env: Record<string, string> = {}, how: { process?: boolean } = {}) =>
  runCli(['release', '--data-dir', dataDir, '--quiet', ...extra], {
    env: { TARIFF_SOURCE_URLS: LISTS.map((name) => authority.url(`/${name}`)).join(' '), ...onDay(date), ...env },
    ...how,
  });
const current = () => readBucketJson(join(dataDir, 'bucket'), 'current.json');
const published = (version: string) => openDatasetFile('json', readFileSync(join(dataDir, 'releases', version, 'dataset.json.gz')));

describeLocal('tariff release over a sequence of days', () => {
  it('publishes the tariff in force, then nothing until the future tariff takes effect on its day', async () => {
    // The cron job's first run as cron runs it: a real process, whose every byte of output is checked.
    const first = await release('2026-11-22', [], {}, { process: true });
    expect(first).toMatchObject({ status: 0, stdout: 'published 20261101.1 (was none)\n', stderr: '' });
    expect(current()).toMatchObject({ version: '20261101.1', tariffDate: '2026-11-01', counts: { products: 14 } });

    for (const day of ['2026-11-22', '2026-11-25', '2026-11-30']) {
      // Nothing new: cron has nothing to mail.
      expect(await release(day)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    }
    expect(current().version).toBe('20261101.1');

    expect(await release('2026-12-01')).toMatchObject({ status: 0, stdout: 'published 20261201.1 (was 20261101.1)\n' });
    expect(current()).toMatchObject({ version: '20261201.1', tariffDate: '2026-12-01', counts: { products: 15 } });
    expect(await release('2026-12-01')).toMatchObject({ status: 0, stdout: '', stderr: '' });

    // Each release carries what changed since the one before it; the first one, nothing.
    expect(await published('20261101.1')).toMatchObject({ changesSince: null, changes: [] });
    const december = await published('20261201.1');
    expect(december.changesSince).toBe('20261101.1');
    expect(december.changes.filter((c) => c.kind === 'product_added').map((c) => c.admCode)).toHaveLength(1);
    expect(december.changes.some((c) => c.kind === 'price_changed' && c.effectiveFrom === '2026-12-01')).toBe(true);

    // Every published release has a local copy with what it was built from.
    const provenance = JSON.parse(readFileSync(join(dataDir, 'releases', '20261201.1', 'provenance.json'), 'utf8'));
    expect(provenance.sources).toHaveLength(4);
    expect(readFileSync(join(dataDir, provenance.sources[3].snapshot))).toEqual(readFileSync(join(SAMPLE, LISTS[3]!)));
  });

  it('repairs the current release when the bucket no longer holds it whole, instead of saying unchanged', async () => {
    expect((await release('2026-11-22')).stdout).toBe('published 20261101.1 (was none)\n');
    const file = join(dataDir, 'bucket', 'releases', '20261101.1', 'dataset.docdb.gz');
    const good = readFileSync(file);
    writeFileSync(file, Buffer.concat([good.subarray(0, 100), Buffer.from('damaged')]));
    expect(await release('2026-11-22')).toMatchObject({ status: 0, stdout: 'repaired 20261101.1\n' });
    expect(readFileSync(file)).toEqual(good);
    expect(await release('2026-11-22')).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('repairs a damaged current release that carries changes: the same version, the same bytes, its changes kept', async () => {
    await release('2026-11-22');
    expect((await release('2026-12-01')).stdout).toBe('published 20261201.1 (was 20261101.1)\n');
    const file = join(dataDir, 'bucket', 'releases', '20261201.1', 'dataset.json.gz');
    const good = readFileSync(file);
    const flipOneByte = () => {
      const bytes = Buffer.from(good);
      bytes[bytes.length >> 1]! ^= 0x01;
      writeFileSync(file, bytes);
    };

    // From the local copy the run left in <data-dir>/releases.
    flipOneByte();
    expect(await release('2026-12-01')).toEqual({ status: 0, stdout: 'repaired 20261201.1\n', stderr: '' });
    expect(readFileSync(file)).toEqual(good);

    // Without a local copy: rebuilt from the rows of the bucket's intact SQLite file, byte for byte.
    flipOneByte();
    rmSync(join(dataDir, 'releases'), { recursive: true });
    expect(await release('2026-12-01')).toEqual({ status: 0, stdout: 'repaired 20261201.1\n', stderr: '' });
    expect(readFileSync(file)).toEqual(good);
    expect(current().version).toBe('20261201.1');
    const rows = await openDatasetFile('json', readFileSync(file));
    expect(rows).toMatchObject({ changesSince: '20261101.1' });
    expect(rows.changes.length).toBeGreaterThan(0);
  });

  it("publishes another day's tariff only when told, and never moves the current version back", async () => {
    expect((await release('2026-11-22')).stdout).toBe('published 20261101.1 (was none)\n');

    const refused = await release('2026-11-22', ['--date', '2026-12-01']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      "--date 2026-12-01 is not today (2026-11-22): the release would publish that day's tariff to the live bucket",
    );
    expect(refused.stderr).toContain('--allow-other-date');
    // A dry run changes nothing, so it may look at any day.
    expect((await release('2026-11-22', ['--date', '2026-12-01', '--dry-run'])).stdout).toBe(
      "dry run: would publish 20261201.1 (current: 20261101.1), the tariff in force on 2026-12-01, not today's\n",
    );
    expect(current().version).toBe('20261101.1');

    expect(await release('2026-11-22', ['--date', '2026-12-01', '--allow-other-date'])).toEqual({
      status: 0,
      stdout: "published 20261201.1 (was 20261101.1), the tariff in force on 2026-12-01, not today's\n",
      stderr: '',
    });
    // The next scheduled run builds today's tariff, older than the current one: refused, said, nothing changed.
    const scheduled = await release('2026-11-23');
    expect(scheduled.status).toBe(1);
    expect(scheduled.stdout).toBe('');
    expect(scheduled.stderr).toContain('20261101.2 is older than the current release 20261201.1; nothing was published');
    expect(scheduled.stderr).toContain('tariff rollback');
    expect((await release('2026-11-22', ['--date', '2026-10-01', '--allow-other-date'])).status).toBe(1);
    expect(current().version).toBe('20261201.1');
    // On its day the scheduled run finds the tariff it published early: nothing to do.
    expect(await release('2026-12-01')).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('publishes n+1 when a list changes within the same tariff date', async () => {
    await release('2026-11-22');
    const fixed = readFileSync(join(SAMPLE, 'sigarette-2026-11-01.xml'), 'latin1').replace(
      '<prezzoConfezione>5,70</prezzoConfezione>',
      '<prezzoConfezione>5,75</prezzoConfezione>',
    );
    authority.lists.set('/sigarette-2026-11-01.xml', { body: Buffer.from(fixed, 'latin1') });
    expect(await release('2026-11-22')).toMatchObject({ status: 0, stdout: 'published 20261101.2 (was 20261101.1)\n' });
  });

  it('keeps the snapshots a kept release or list needs, and removes the others once their releases go', async () => {
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const snapshots = () => readdirSync(join(dataDir, 'snapshots')).filter((name) => name.endsWith('.xml'));
    const original = readFileSync(join(SAMPLE, 'sigarette-2026-11-01.xml'));
    expect((await release('2026-11-22', ['--keep', '1'])).status).toBe(0);
    const before = snapshots();
    const lists = [original];
    for (const price of ['5,75', '5,80']) {
      const changed = Buffer.from(
        original.toString('latin1').replace('<prezzoConfezione>5,70</prezzoConfezione>', `<prezzoConfezione>${price}</prezzoConfezione>`),
        'latin1',
      );
      lists.push(changed);
      authority.lists.set('/sigarette-2026-11-01.xml', { body: changed });
      expect((await release('2026-11-22', ['--keep', '1'])).status).toBe(0);
    }
    expect(current().version).toBe('20261101.3');
    // The first two cigarette lists were needed by releases the bucket no longer keeps: gone; the
    // one in force and every other list (still in force, or waiting for its day) stay.
    const now = snapshots();
    expect(now).not.toContain(`${sha256(lists[0]!)}.xml`);
    expect(now).not.toContain(`${sha256(lists[1]!)}.xml`);
    expect(now).toContain(`${sha256(lists[2]!)}.xml`);
    expect(now).toHaveLength(before.length);
    expect(readdirSync(join(dataDir, 'snapshots')).filter((name) => name.endsWith('.json'))).toHaveLength(before.length);
    // What stays rebuilds what is kept.
    expect((await runCli(['verify', '--rebuild', '20261101.3', '--data-dir', dataDir])).status).toBe(0);
  });

  it('prints one line per step without a terminal, and a summary with --json', async () => {
    const lines = await runCli(['release', '--data-dir', dataDir], {
      env: { TARIFF_SOURCE_URLS: LISTS.map((name) => authority.url(`/${name}`)).join(','), ...onDay('2026-11-22') },
    });
    expect(lines.status).toBe(0);
    expect(
      lines.stderr
        .trim()
        .split('\n')
        .map((line) => line.split(':')[1]),
    ).toEqual([
      // One line per source, then what was gathered; then each step of the pipeline's table in order.
      ...Array<string>(5).fill(' fetch'),
      ' parse',
      ' select',
      ' assemble',
      ' check',
      ...Array<string>(3).fill(' build'),
      ' plan',
      ' write',
      ' verify',
      // Three files, then the read-back.
      ...Array<string>(4).fill(' upload'),
      // The documents it was built from, kept in the bucket by content.
      ' sources',
      ' switch',
      ' prune',
      // Then the price history records the release just published.
      ' history',
    ]);
    expect(lines.stderr).toContain('history: recorded 20261101.1 (');
    expect(lines.stderr).toContain('build: no changes recorded: nothing to compare with (a first release');
    const json = await release('2026-11-22', ['--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'unchanged',
      version: '20261101.1',
      fetch: [{ status: 'unchanged' }, {}, {}, {}],
    });
  });

  it('goes on with the last good snapshot when a list cannot be fetched, and exits 1', async () => {
    await release('2026-11-22');
    authority.lists.set('/liquidi-2026-06-01.xml', { body: '', status: 404 });
    const result = await release('2026-12-01');
    expect(result.status).toBe(1);
    // --quiet still says what failed and why, and the last line says the run failed.
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^tariff: .*liquidi-2026-06-01\.xml failed: .*HTTP 404/);
    expect(lines.at(-1)).toBe(
      'tariff: published 20261201.1 (was 20261101.1), but 1 list failed: ' + authority.url('/liquidi-2026-06-01.xml') + ' (HTTP 404)',
    );
    expect(current().counts.products).toBe(15);
    const json = JSON.parse((await release('2026-12-01', ['--json'])).stdout);
    expect(json).toMatchObject({
      ok: false,
      status: 'unchanged',
      failures: [{ url: authority.url('/liquidi-2026-06-01.xml'), error: expect.stringMatching(/HTTP 404/) }],
    });
  });

  it('lets only one of two overlapping runs publish', async () => {
    const [a, b] = await Promise.all([release('2026-11-22'), release('2026-11-22')]);
    const published = [a, b].filter((run) => run.stdout.startsWith('published'));
    expect(published).toHaveLength(1);
    const other = a === published[0] ? b : a;
    expect(other.stdout === '' || other.stderr.includes('Another run holds the lock')).toBe(true);
    expect(current().version).toBe('20261101.1');
  });

  it('says with --dry-run what it would publish, and changes nothing: no snapshot, no local copy, no upload', async () => {
    const tree = () => readdirSync(dataDir, { recursive: true }).map(String).sort();
    const before = tree();
    const dry = await release('2026-11-22', ['--dry-run']);
    expect(dry).toMatchObject({ status: 0, stdout: 'dry run: would publish 20261101.1 (current: none)\n' });
    expect(tree()).toEqual(before);

    await release('2026-11-22');
    const published = tree();
    const next = await runCli(['release', '--data-dir', dataDir, '--dry-run'], {
      env: { TARIFF_SOURCE_URLS: LISTS.map((name) => authority.url(`/${name}`)).join(' '), ...onDay('2026-12-01') },
    });
    expect(next.stdout).toBe('dry run: would publish 20261201.1 (current: 20261101.1)\n');
    // The steps that change something say what they would do; the others ran.
    expect(next.stderr).toMatch(/write: would write 20261201\.1 in .*releases\/20261201\.1/);
    expect(next.stderr).toMatch(/upload: would upload releases\/20261201\.1\/dataset\.json\.gz \(\d+ bytes\)/);
    expect(next.stderr).toContain('switch: would make 20261201.1 current (was 20261101.1)');
    expect(next.stderr).toContain('prune: would keep 30: mark nothing for removal');
    expect(next.stderr).toMatch(/verify: 20261201\.1: json, sqlite and docdb match the manifest/);
    expect(tree()).toEqual(published);
    expect(current().version).toBe('20261101.1');

    const publish = await runCli(['publish', join(dataDir, 'releases', '20261101.1'), '--data-dir', dataDir, '--dry-run', '--keep', '1']);
    expect(publish).toMatchObject({
      status: 0,
      stdout: `dry run: 20261101.1 is current and whole in folder ${join(dataDir, 'bucket')}/, nothing to publish\n`,
    });
    expect(publish.stderr).toContain('upload: skipped: nothing to upload');
  });

  it('keeps the candidate of a dry run for tariff diff, and its plan is the one the run applies', async () => {
    await release('2026-11-22');
    const candidate = join(dataDir, 'candidate');
    const dry = await release('2026-12-01', ['--dry-run', '--candidate', candidate, '--json']);
    expect(dry.status).toBe(0);
    const planned = JSON.parse(dry.stdout).plan;
    expect(planned).toMatchObject({ version: '20261201.1', current: '20261101.1', switch: { from: '20261101.1', to: '20261201.1' } });
    expect(current().version).toBe('20261101.1');

    const diff = await runCli(['diff', 'current', candidate, '--data-dir', dataDir, '--json']);
    expect(diff.status).toBe(1);
    expect(JSON.parse(diff.stdout)).toMatchObject({ old: { version: '20261101.1' }, new: { version: '20261201.1' } });
    expect(JSON.parse(diff.stdout).products.added).toHaveLength(1);
    expect((await release('2026-12-01', ['--candidate', candidate])).status).toBe(2);

    const run = await release('2026-12-01', ['--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'published', plan: planned });
  });

  it('exits 2 with no source configured', async () => {
    const result = await runCli(['release', '--data-dir', dataDir]);
    expect(result.status).toBe(2);
  });
});

describeS3('tariff release, publish, releases and rollback on S3 through the standard variables', () => {
  let s3: S3Stand;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('publishes, lists, re-publishes as a no-op and rolls back', async () => {
    const bucket = `s3://${s3.bucket}/e2e`;
    expect(await release('2026-11-22', ['--bucket', bucket], s3.env)).toMatchObject({
      status: 0,
      stdout: 'published 20261101.1 (was none)\n',
    });
    expect(await release('2026-12-01', ['--bucket', bucket], s3.env)).toMatchObject({
      status: 0,
      stdout: 'published 20261201.1 (was 20261101.1)\n',
    });

    const again = await runCli(['publish', join(dataDir, 'releases', '20261201.1'), '--bucket', bucket, '--data-dir', dataDir], {
      env: s3.env,
    });
    expect(again).toMatchObject({ status: 0, stdout: '20261201.1 (already current)\n' });

    // Maintainers compare versions as the bucket holds them.
    const diff = await runCli(['diff', '20261101.1', 'current', '--bucket', bucket, '--json'], { env: s3.env });
    expect(diff.status).toBe(1);
    expect(JSON.parse(diff.stdout)).toMatchObject({ identical: false, old: { version: '20261101.1' }, new: { version: '20261201.1' } });
    expect(JSON.parse(diff.stdout).products.priceChanged.length).toBeGreaterThan(0);
    expect((await runCli(['diff', '20261201.1', 'current', '--bucket', bucket], { env: s3.env })).status).toBe(0);
    expect((await runCli(['diff', '20251101.1', 'current', '--bucket', bucket], { env: s3.env })).stderr).toContain(
      'the bucket does not hold it',
    );
    const listing = await runCli(['releases', '--bucket', bucket, '--json'], { env: s3.env });
    expect(JSON.parse(listing.stdout)).toMatchObject({ versions: ['20261101.1', '20261201.1'], current: '20261201.1' });

    expect(await runCli(['rollback', '20261101.1', '--bucket', bucket], { env: s3.env })).toMatchObject({
      status: 0,
      stdout: '20261101.1 is current (was 20261201.1)\n',
    });
    expect(await runCli(['rollback', '20261101.1', '--bucket', bucket], { env: s3.env })).toMatchObject({
      status: 0,
      stdout: '20261101.1 is already current\n',
    });
    expect(await runCli(['rollback', '20251101.1', '--bucket', bucket], { env: s3.env })).toMatchObject({ status: 1 });

    // After a rollback the next release is compared with the release rolled back to, and says so.
    const after = await runCli(['release', '--bucket', bucket, '--data-dir', dataDir, '--json'], {
      env: { ...s3.env, TARIFF_SOURCE_URLS: LISTS.map((name) => authority.url(`/${name}`)).join(' '), ...onDay('2026-12-01') },
    });
    expect(JSON.parse(after.stdout)).toMatchObject({
      status: 'published',
      version: '20261201.2',
      previousVersion: '20261101.1',
      changesSince: '20261101.1',
      changes: { added: 1 },
    });
    expect((await published('20261201.2')).changesSince).toBe('20261101.1');
  });
});
