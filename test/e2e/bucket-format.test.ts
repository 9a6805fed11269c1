import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHistory } from '../../src/history/history-file.ts';
import { readHistory } from '../../src/history/history-store.ts';
import { gzipDeterministic } from '../../src/release/gzip.ts';
import { leaseHeld } from '../../src/publish/bucket-lease.ts';
import { FORMAT_KEY } from '../../src/storage/bucket-format.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { readBucketKey } from '../helpers/bucket-folder.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';

const CIGARETTES = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
const LIQUIDS = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');
const DAY = onDay('2026-11-22');

/** A format a later tariff might write: layout 4, for readers and writers of the layouts given. */
const newer = (reader: number, writer: number) =>
  JSON.stringify({ format: 'tariff-bucket', version: 4, minReaderVersion: reader, minWriterVersion: writer, createdBy: 'tariff 9.0.0' });

/** A second release of the same tariff: one barcode more, so another version (20261101.2). */
async function secondBuild(dataDir: string, previous: string): Promise<string> {
  const barcodes = join(dataDir, 'barcodes.csv');
  writeFileSync(barcodes, 'barcode,admCode,kind,units\n8001000000016,1001,pack,1\n');
  const out = join(dataDir, 'build2');
  const built = await runCli(
    ['build', '--source', CIGARETTES, '--barcodes', barcodes, '--date', '2026-11-22', '--previous', previous, '--out', out],
    {
      env: DAY,
    },
  );
  expect(built.status, built.stderr).toBe(0);
  return out;
}

/** A folder bucket with one release published by this version, and the folder it was built in. */
async function published(): Promise<{ dataDir: string; bucket: string; build: string }> {
  const dataDir = await tempDir();
  const build = join(dataDir, 'build');
  const built = await runCli(['build', '--source', CIGARETTES, '--date', '2026-11-22', '--out', build, '--data-dir', dataDir], {
    env: DAY,
  });
  expect(built.status, built.stderr).toBe(0);
  const publish = await runCli(['publish', build, '--data-dir', dataDir], { env: DAY });
  expect(publish.status, publish.stderr).toBe(0);
  return { dataDir, bucket: join(dataDir, 'bucket'), build };
}

/** Every file of a folder with its bytes: what "nothing was written" is checked against. */
function snapshot(folder: string): string {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(folder, entry);
    files.push(statSync(path).isFile() ? `${entry} ${readFileSync(path).toString('base64')}` : `${entry}/`);
  }
  return files.join('\n');
}

describe('the bucket says its format', () => {
  it('is written on the first write, with a plain current.json that older readers read as the newest generation', async () => {
    const { dataDir, bucket, build } = await published();
    expect(JSON.parse(readFileSync(join(bucket, FORMAT_KEY), 'utf8'))).toMatchObject({
      format: 'tariff-bucket',
      version: 3,
      minReaderVersion: 3,
      minWriterVersion: 3,
      createdBy: expect.stringMatching(/^tariff \d+\.\d+\.\d+/),
    });
    // A second release: the plain copy follows the swap, as a reader of layout 1 needs.
    const second = await secondBuild(dataDir, build);
    expect((await runCli(['publish', second, '--data-dir', dataDir], { env: DAY })).status).toBe(0);
    const current = readBucketKey(bucket, 'current.json')!;
    expect(JSON.parse(current.toString()).version).toBe('20261101.2');
    expect(readFileSync(join(bucket, 'current.json'))).toEqual(current);
    // The lock let go (written over, never deleted): its plain copy follows, saying it was let go.
    const lock = readBucketKey(bucket, 'writer-lock.json')!;
    expect(leaseHeld(lock)).toBe(false);
    expect(readFileSync(join(bucket, 'writer-lock.json'))).toEqual(lock);
  });

  it('reads a bucket of the older layout and upgrades it by its first write, one way', async () => {
    const { dataDir, bucket, build } = await published();
    // The bucket as tariff 0.1.0 left it: plain pointers, no format object, no generations.
    rmSync(join(bucket, FORMAT_KEY));
    for (const name of readdirSync(bucket).filter((entry) => entry.endsWith('.gen'))) rmSync(join(bucket, name), { recursive: true });
    const verify = await runCli(['verify', '--bucket', bucket, '--data-dir', dataDir]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(existsSync(join(bucket, FORMAT_KEY)), 'a read writes nothing').toBe(false);
    const second = await secondBuild(dataDir, build);
    const publish = await runCli(['publish', second, '--data-dir', dataDir], { env: DAY });
    expect(publish.status, publish.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(bucket, FORMAT_KEY), 'utf8')).version).toBe(3);
    expect(existsSync(join(bucket, 'current.json.gen'))).toBe(true);
    expect(JSON.parse(readFileSync(join(bucket, 'current.json'), 'utf8')).version).toBe('20261101.2');
  });

  it('reads a bucket of layout 2 (as tariff 1.0.0 left it) and upgrades it by its first write: the format swapped, the history made a log', async () => {
    const { dataDir, bucket, build } = await published();
    // The bucket as tariff 1.0.0 left it: a format object of layout 2, the history's manifest naming one file.
    const { history } = await readHistory(new LocalBucket(bucket));
    const file = gzipDeterministic(renderHistory(history));
    const sha256 = createHash('sha256').update(file).digest('hex');
    rmSync(join(bucket, 'history'), { recursive: true });
    mkdirSync(join(bucket, 'history'));
    writeFileSync(join(bucket, 'history', `history-${sha256}.json.gz`), file);
    const layout1 = {
      file: `history-${sha256}.json.gz`,
      sha256,
      size: file.length,
      release: history.release,
      products: history.products.length,
      imports: [],
    };
    writeFileSync(join(bucket, 'history', 'manifest.json'), JSON.stringify(layout1));
    writeFileSync(
      join(bucket, FORMAT_KEY),
      JSON.stringify({ format: 'tariff-bucket', version: 2, minReaderVersion: 2, minWriterVersion: 2, createdBy: 'tariff 1.0.0' }),
    );
    const before = snapshot(bucket);
    const shown = await runCli(['history', '1001', '--json', '--data-dir', dataDir]);
    expect(shown.status, shown.stderr).toBe(0);
    const verify = await runCli(['verify', '--bucket', bucket, '--data-dir', dataDir]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(snapshot(bucket), 'a read writes nothing').toBe(before);

    const second = await secondBuild(dataDir, build);
    const publish = await runCli(['publish', second, '--data-dir', dataDir], { env: DAY });
    expect(publish.status, publish.stderr).toBe(0);
    expect(JSON.parse(readBucketKey(bucket, FORMAT_KEY)!.toString())).toMatchObject({
      version: 3,
      minReaderVersion: 3,
      minWriterVersion: 3,
    });
    const manifest = JSON.parse(readBucketKey(bucket, 'history/manifest.json')!.toString());
    expect(manifest).toMatchObject({ layout: 2, release: '20261101.2', checkpoint: { sha256 }, segments: [{ releases: 1 }] });
    expect((await runCli(['verify', '--bucket', bucket, '--data-dir', dataDir])).status).toBe(0);
    const after = JSON.parse((await runCli(['history', '1001', '--json', '--data-dir', dataDir])).stdout);
    expect(after.steps).toEqual(JSON.parse(shown.stdout).steps);
  });

  it('of a newer format is refused by every command and by serve, before anything is read or written', async () => {
    const { dataDir, bucket, build } = await published();
    writeFileSync(join(bucket, FORMAT_KEY), newer(4, 4));
    /** Refused by name: the format object, the format, what it needs, and who wrote it. */
    const refusedByName = (result: { status: number; stderr: string }, what: string) => {
      // diff's statuses are diff(1)'s: 1 says the releases differ, 2 that it could not compare them.
      expect(result.status, `${what}: ${result.stderr}`).toBe(what.startsWith('diff') ? 2 : 1);
      expect(result.stderr, what).toContain(`${bucket}/${FORMAT_KEY}: the bucket is of format 4 (written by tariff 9.0.0), which needs a`);
    };
    const authority = await new AuthorityServer().start();
    authority.lists.set('/sigarette.xml', { body: readFileSync(CIGARETTES) });
    const before = snapshot(bucket);
    const on = ['--data-dir', dataDir];
    const commands: string[][] = [
      ['verify', '--bucket', bucket],
      ['releases'],
      ['diff', 'current', build],
      ['history', '1001'],
      ['publish', build],
      ['rollback', '20261101.1'],
      ['release', '--source-url', authority.url('/sigarette.xml'), '--date', '2026-11-22'],
      ['history', 'import', LIQUIDS],
      ['history', 'remove', 'listino-liquidi-2026-11-01.pdf', '--apply'],
      ['signing-key', 'create', '--out', join(dataDir, 'key.pem')],
      ['signing-key', 'list'],
      ['verify', '--rebuild', '20261101.1'],
      ['barcodes', 'approve', '8001000000016', '--adm-code', '1001', '--kind', 'pack'],
    ];
    for (const command of commands) refusedByName(await runCli([...command, ...on], { env: DAY }), command.join(' '));
    // A backup goes to a bucket away from the data dir: one of a newer format is refused as well.
    expect((await runCli(['accounts', 'create', 'cassa@example.it', '--type', 'User', ...on])).status).toBe(0);
    const elsewhere = await tempDir();
    writeFileSync(join(elsewhere, FORMAT_KEY), newer(4, 4));
    const backup = await runCli(['registry', 'backup', '--to', elsewhere, '--plaintext', ...on]);
    expect(backup.status, backup.stderr).toBe(1);
    expect(backup.stderr).toContain(`${elsewhere}/${FORMAT_KEY}: the bucket is of format 4`);
    const json = await runCli(['publish', build, '--json', ...on], { env: DAY });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'bucket_format_newer' });
    // serve, as a process: it stops before it listens, exit 1.
    const serve = await runCli(['serve', '--port', '0', '--host', '127.0.0.1', ...on], { process: true });
    refusedByName(serve, 'serve');
    expect(serve.stderr).toContain('needs a reader of format 4; this tariff reads format 3 at most');
    expect(snapshot(bucket)).toBe(before);
    await authority.close();
  });

  it('refuses writers only, when the newer format lets older readers read it', async () => {
    const { dataDir, bucket, build } = await published();
    writeFileSync(join(bucket, FORMAT_KEY), newer(3, 4));
    const before = snapshot(bucket);
    const verify = await runCli(['verify', '--bucket', bucket, '--data-dir', dataDir]);
    expect(verify.status, verify.stderr).toBe(0);
    const publish = await runCli(['publish', build, '--data-dir', dataDir], { env: DAY });
    expect(publish.status).toBe(1);
    expect(publish.stderr).toContain('needs a writer of format 4; this tariff writes format 3 at most');
    expect(snapshot(bucket)).toBe(before);
  });

  it('a damaged format object is refused by name, never guessed at', async () => {
    const { dataDir, bucket } = await published();
    writeFileSync(join(bucket, FORMAT_KEY), '{"format": "tariff-buck');
    const verify = await runCli(['verify', '--bucket', bucket, '--data-dir', dataDir]);
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain(`${bucket}/${FORMAT_KEY}: not a bucket format object`);
  });

  it('serve keeps the release it serves when the bucket turns to a newer format under it, and says why', async () => {
    const { dataDir, bucket } = await published();
    const serve = await serveInProcess(dataDir, { TARIFF_MANIFEST_POLL_MS: '50' });
    try {
      await serve.logged((entry) => entry.event === 'release.switch');
      writeFileSync(join(bucket, FORMAT_KEY), newer(4, 4));
      const failed = await serve.logged((entry) => entry.event === 'release.refresh_failed');
      expect(String(failed.error)).toContain(`needs a reader of format 4`);
      const ready = await fetch(`${serve.url}/readyz`);
      expect(await ready.json()).toMatchObject({ status: 'ready', release: '20261101.1' });
      const health = (await (await fetch(`${serve.url}/healthz`)).json()) as { problem: string };
      expect(health.problem).toContain('needs a reader of format 4');
    } finally {
      await serve.stop();
    }
  });

  it('the data dir says its format too: written into one that has none, a newer one refused by name before its config is read', async () => {
    const { dataDir } = await published();
    expect(JSON.parse(readFileSync(join(dataDir, 'tariff-data-dir.json'), 'utf8'))).toMatchObject({
      format: 'tariff-data-dir',
      version: 1,
    });
    writeFileSync(
      join(dataDir, 'tariff-data-dir.json'),
      JSON.stringify({ format: 'tariff-data-dir', version: 2, createdBy: 'tariff 9.0.0' }),
    );
    writeFileSync(join(dataDir, 'config.json'), '{"a setting of tariff 9": true}');
    const releases = await runCli(['releases', '--data-dir', dataDir]);
    expect(releases.status).toBe(1);
    expect(releases.stderr).toContain(
      `${dataDir}/tariff-data-dir.json: the data dir is of format 2 (written by tariff 9.0.0); this tariff knows format 1 at most`,
    );
  });
});
