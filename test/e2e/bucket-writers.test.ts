import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHistory } from '../../src/history/history-store.ts';
import { leaseHeld, LEASE_KEY } from '../../src/publish/bucket-lease.ts';
import type { Bucket as Store } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { onDay, REPO, runCli, type CliResult } from '../helpers/run-cli.ts';
import { startIgnoringS3, startS3, type S3Stand } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const CIGARETTES = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
/** A small real list of another category: imported and removed in turn, beside the publications. */
const LIQUIDS = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');

/** A GTIN-13 of AURORA ROSSA (1001) numbered `n`, with its check digit. */
function barcode(n: number): string {
  const body = `800100${String(n).padStart(6, '0')}`;
  const sum = [...body].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

interface Bucket {
  uri: string;
  env: Record<string, string>;
  /** The bucket through the CLI's own view of it, to read. */
  store: Store;
}

/** What the publishing machine does in a round, in turn; the historian imports in odd rounds and removes in even ones. */
const PUBLISHER_TURNS = ['publish', 'rollback', 'release', 'signing-key create'] as const;
const SKEW_MS = 5 * 60_000;

/** A seeded generator (mulberry32): a failing round is replayed by its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Two machines that share nothing but the bucket: a publisher (publish a built folder, roll back,
 * release from the authority, create a signing key; all signed) and a historian (history import
 * and remove), each with its own data dir, racing round after round. In every round one of the
 * two runs with its clock 5 minutes ahead or behind, at random: the lease is judged on the
 * waiting writer's own clock, whatever time the other wrote.
 */
async function race(bucket: Bucket, rounds: number) {
  const publisher = await tempDir();
  const historian = await tempDir();
  const authority = await new AuthorityServer().start();
  authority.lists.set('/sigarette.xml', { body: readFileSync(CIGARETTES) });
  const seed = Number(process.env.TARIFF_RACE_SEED ?? Date.now() % 2 ** 31);
  const random = seeded(seed);
  // Every writer on the day of the sample tariff (what is built and signed); their machines' clocks are their own.
  const day = { ...bucket.env, ...onDay('2026-11-22'), TARIFF_SOURCE_URLS: authority.url('/sigarette.xml') };
  const as =
    (dataDir: string) =>
    (args: string[], env: Record<string, string> = {}, machineNow?: () => Date) =>
      runCli([...args, '--data-dir', dataDir, '--bucket', bucket.uri], { env: { ...day, ...env }, machineNow });
  const publisherCli = as(publisher);
  const historianCli = as(historian);
  try {
    const key = JSON.parse((await publisherCli(['signing-key', 'create', '--json'])).stdout).file as string;
    const signed = { TARIFF_SIGNING_KEY: key };
    /** Where each version published forward is, on the publisher's disk: its build folder, or the copy `release` keeps. */
    const folders = new Map<string, string>();
    let built = 0;
    const build = async (previous: string | null) => {
      built += 1;
      const out = join(publisher, 'build', String(built));
      const args = ['build', '--source', CIGARETTES, '--barcodes', barcodesFile(publisher, built), '--date', '2026-11-22', '--out', out];
      const result = await runCli([...args, ...(previous ? ['--previous', previous] : []), '--data-dir', publisher], { env: day });
      expect(result.status, result.stderr).toBe(0);
      const version = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).version as string;
      folders.set(version, out);
      return version;
    };
    const forward = [await build(null)];
    expect((await publisherCli(['publish', folders.get(forward[0]!)!], signed)).status).toBe(0);
    let current = forward[0]!;

    let sequence = 0;
    for (let round = 1; round <= rounds; round += 1) {
      const turn = PUBLISHER_TURNS[(round - 1) % PUBLISHER_TURNS.length]!;
      const importing = round % 2 === 1;
      const skewed = random() < 0.5 ? 'publisher' : 'historian';
      const skew = (random() < 0.5 ? -1 : 1) * SKEW_MS;
      const clock = () => new Date(Date.now() + skew);
      const where = `round ${round} (${turn}, ${importing ? 'import' : 'remove'}; the ${skewed}'s clock ${skew > 0 ? '+' : '-'}5 min; TARIFF_RACE_SEED=${seed})`;
      const publisherClock = skewed === 'publisher' ? clock : undefined;
      const historianClock = skewed === 'historian' ? clock : undefined;

      const next = turn === 'publish' ? await build(folders.get(forward.at(-1)!)!) : null;
      const target = turn === 'rollback' ? forward.at(-2)! : null;
      const publishing = (): Promise<CliResult> => {
        if (next) return publisherCli(['publish', folders.get(next)!], signed, publisherClock);
        if (target) return publisherCli(['rollback', target], signed, publisherClock);
        if (turn === 'release') {
          const barcodes = ['--barcodes', barcodesFile(publisher, 1_000 + round)];
          return publisherCli(['release', '--json', ...barcodes], signed, publisherClock);
        }
        return publisherCli(['signing-key', 'create', '--json'], {}, publisherClock);
      };
      const [writer, history] = await Promise.all([
        publishing(),
        importing
          ? historianCli(['history', 'import', LIQUIDS], {}, historianClock)
          : historianCli(['history', 'remove', 'listino-liquidi-2026-11-01.pdf', '--apply'], {}, historianClock),
      ]);
      expect(ok(writer), where).toBe(0);
      expect(ok(history), where).toBe(0);
      if (next) current = next;
      if (target) current = target;
      if (turn === 'release') {
        const summary = JSON.parse(writer.stdout) as { status: string; version: string };
        expect(summary.status, where).toBe('published');
        expect(summary.version > forward.at(-1)!, `${where}: ${summary.version} follows ${forward.at(-1)}`).toBe(true);
        folders.set(summary.version, join(publisher, 'releases', summary.version));
        current = summary.version;
      }
      if (current !== forward.at(-1) && !target) forward.push(current);

      const manifest = JSON.parse((await bucket.store.get('current.json'))!.toString());
      expect(manifest.version, where).toBe(current);
      if (turn === 'signing-key create') expect(manifest.sequence, `${where}: the current release stays`).toBe(sequence);
      else expect(manifest.sequence, `${where}: sequences only grow`).toBeGreaterThan(sequence);
      sequence = manifest.sequence;
      // Neither writer's history step is lost: the latest release published forward, and the historian's list.
      const { history: recorded } = await readHistory(bucket.store);
      expect(recorded.release, where).toBe(forward.at(-1));
      const liquids = recorded.products.filter((product: { category: string }) => product.category === 'inhalation_liquids');
      expect(liquids.length > 0, `${where}: the liquids list is ${importing ? 'in' : 'out of'} the history`).toBe(importing);
      expect(leaseHeld(await bucket.store.get(LEASE_KEY)), `${where}: the writer lock is let go`).toBe(false);
      const verified = await publisherCli(['verify', '--bucket', bucket.uri]);
      expect(verified.status, `${where}: ${verified.stderr}`).toBe(0);
    }
  } finally {
    await authority.close();
  }
}

/** A barcode list of one AURORA ROSSA pack numbered `n`: each release carries one of its own. */
function barcodesFile(dir: string, n: number): string {
  const path = join(dir, `barcodes-${n}.csv`);
  writeFileSync(path, `barcode,admCode,kind,units\n${barcode(n)},1001,pack,1\n`);
  return path;
}

const ok = (result: CliResult) => {
  if (result.status !== 0) console.error(result.stderr);
  return result.status;
};

describe('two writers of one folder bucket', () => {
  it('100 rounds of publish, rollback, release or signing-key create racing history import or remove, one clock 5 min off: nothing lost, the bucket verifying', async () => {
    const folder = join(await tempDir(), 'bucket');
    await race({ uri: folder, env: {}, store: new LocalBucket(folder) }, 100);
    // About 20 s alone; a machine that runs every other file beside it may take several times that.
  }, 300_000);
});

describe('two writers of one S3 bucket that honours conditional writes', () => {
  let s3: S3Stand;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('20 rounds, one clock 5 min off: nothing lost, sequences growing, the bucket verifying', async () => {
    // Through a proxy that passes every request on as sent, only to count the store's refusals.
    const counting = await s3.proxy();
    const env = { ...s3.env, AWS_ENDPOINT_URL_S3: counting.url };
    const uri = `s3://${s3.bucket}/race`;
    const direct = new S3Bucket({ bucket: s3.bucket, prefix: 'race', env: s3.env, pathStyle: true });
    await race({ uri, env, store: direct }, 20);
    // The lease was taken by compare-and-swap: the store refused at least the probes that check it does.
    expect(counting.refused).toBeGreaterThan(0);
  }, 300_000);

  it('a store that stops right after the switch: the message names the new current release, the next run records its history', async () => {
    const dataDir = await tempDir();
    const uri = `s3://${s3.bucket}/stopping`;
    const publish = async (folder: string, store: { url: string }, process = false) =>
      runCli(['publish', folder, '--bucket', uri, '--data-dir', dataDir], {
        env: { ...s3.env, AWS_ENDPOINT_URL_S3: store.url, TARIFF_S3_ATTEMPTS: '1' },
        process,
      });
    const first = join(dataDir, 'first');
    const second = join(dataDir, 'second');
    const build = (out: string, n: number, previous: string[]) => {
      const barcodes = join(dataDir, `barcodes-${n}.csv`);
      writeFileSync(barcodes, `barcode,admCode,kind,units\n${barcode(n)},1001,pack,1\n`);
      return runCli([
        'build',
        '--source',
        CIGARETTES,
        '--barcodes',
        barcodes,
        '--date',
        '2026-11-22',
        '--out',
        out,
        '--data-dir',
        dataDir,
        ...previous,
      ]);
    };
    expect((await build(first, 900, [])).status).toBe(0);
    expect((await build(second, 901, ['--previous', first])).status).toBe(0);
    const store = await s3.proxy();
    expect((await publish(first, store)).status).toBe(0);

    // The store goes away once current.json is switched: the history write after it fails.
    store.stopAfter((method, key) => method === 'PUT' && key === 'stopping/current.json');
    // A real process: the lock it cannot let go names a process that is gone by the next run.
    const failed = await publish(second, store, true);
    expect(failed.status).toBe(3);
    expect(failed.stderr).toContain(`tariff: 20261101.2 is now the current release in ${uri}/, but removing old versions failed: `);
    expect(failed.stderr).not.toContain('was not changed');
    expect(failed.stderr).toContain('the next `tariff release` or `tariff publish` finishes what was left');

    const back = await s3.proxy();
    try {
      const direct = new S3Bucket({ bucket: s3.bucket, prefix: 'stopping', env: s3.env, pathStyle: true });
      expect(JSON.parse((await direct.get('current.json'))!.toString()).version).toBe('20261101.2');
      expect(JSON.parse((await direct.get('history/manifest.json'))!.toString()).release).toBe('20261101.1');
      const next = await publish(second, back);
      expect(next.status, next.stderr).toBe(0);
      expect(JSON.parse((await direct.get('history/manifest.json'))!.toString()).release).toBe('20261101.2');
    } finally {
      await back.close();
      await store.close();
    }
  });

  it('a writer paused after its switch while another rolls back says another writer made 20261101.1 current since, the bucket verifying', async () => {
    const writerA = await tempDir();
    const writerB = await tempDir();
    const uri = `s3://${s3.bucket}/paused`;
    // Leases live 2 s: B takes A's over once it has seen it unrenewed that long on B's own clock.
    const lease = { TARIFF_KEEP: '2', TARIFF_LOCK_STALE_SECONDS: '2' };
    const folders: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const out = join(writerA, `build-${i}`);
      const barcodes = join(writerA, `barcodes-${i}.csv`);
      writeFileSync(barcodes, `barcode,admCode,kind,units\n${barcode(700 + i)},1001,pack,1\n`);
      const previous = i > 0 ? ['--previous', folders[i - 1]!] : [];
      const args = ['build', '--source', CIGARETTES, '--barcodes', barcodes, '--date', '2026-11-22', '--out', out, ...previous];
      expect((await runCli([...args, '--data-dir', writerA])).status).toBe(0);
      folders.push(out);
    }
    const as = (dataDir: string, args: string[], options: { env?: Record<string, string> } & Parameters<typeof runCli>[1] = {}) =>
      runCli([...args, '--bucket', uri, '--data-dir', dataDir], { ...options, env: { ...s3.env, ...lease, ...options.env } });
    for (const folder of folders.slice(0, 2)) expect((await as(writerA, ['publish', folder])).status).toBe(0);

    // A publishes 20261101.3 through a store that freezes it right after its switch; the process is stopped there too.
    const freezing = await s3.proxy();
    try {
      let child: ChildProcess | undefined;
      const frozen = freezing.pauseAfter((method, key) => method === 'PUT' && key === 'paused/current.json');
      const publishing = as(writerA, ['publish', folders[2]!], {
        env: { AWS_ENDPOINT_URL_S3: freezing.url },
        started: (started) => (child = started),
      });
      await frozen;
      child!.kill('SIGSTOP');
      const direct = new S3Bucket({ bucket: s3.bucket, prefix: 'paused', env: s3.env, pathStyle: true });
      expect(JSON.parse((await direct.get('current.json'))!.toString()).version).toBe('20261101.3');

      // B, on another machine, rolls back: it waits out A's lease, then takes it.
      const rollback = await as(writerB, ['rollback', '20261101.1']);
      expect(rollback.status, rollback.stderr).toBe(0);

      child!.kill('SIGCONT');
      freezing.resume();
      const resumed = await publishing;
      expect(resumed.status, resumed.stderr).toBe(1);
      expect(resumed.stderr).toContain(
        'this run made 20261101.3 current, but another writer has made 20261101.1 current since; removing old versions was left to that writer (bucket_lease_lost)',
      );
    } finally {
      freezing.resume();
      await freezing.close();
    }
    // Nothing of what B made current was removed: 20261101.1 is current and whole.
    const manifest = JSON.parse(
      (await new S3Bucket({ bucket: s3.bucket, prefix: 'paused', env: s3.env, pathStyle: true }).get('current.json'))!.toString(),
    );
    expect(manifest.version).toBe('20261101.1');
    const verified = await as(writerB, ['verify', '--bucket', uri]);
    expect(verified.status, verified.stderr).toBe(0);
  });

  it('says so when the store ignores conditional writes, and publishes all the same', async () => {
    const ignoring = await startIgnoringS3();
    try {
      const dataDir = await tempDir();
      const out = join(dataDir, 'build');
      expect((await runCli(['build', '--source', CIGARETTES, '--date', '2026-11-22', '--out', out, '--data-dir', dataDir])).status).toBe(0);
      const uri = `s3://${ignoring.bucket}/ignoring`;
      const published = await runCli(['publish', out, '--bucket', uri, '--data-dir', dataDir], {
        env: ignoring.env,
      });
      expect(published.status).toBe(0);
      expect(published.stderr).toContain(
        `tariff: warning: ${uri}/ ignores conditional writes (If-None-Match): the writer lock cannot keep two writers apart, so run one writer at a time (docs/operations.md, "One writer at a time")\n`,
      );
    } finally {
      await ignoring.close();
    }
  });

  it('on a store that ignores conditional writes, a cron run with nothing new prints nothing', async () => {
    const ignoring = await startIgnoringS3();
    const authority = await new AuthorityServer().start();
    try {
      authority.lists.set('/sigarette.xml', { body: readFileSync(CIGARETTES) });
      const uri = `s3://${ignoring.bucket}/ignoring-cron`;
      const env = {
        ...ignoring.env,
        ...onDay('2026-11-22'),
        TARIFF_BUCKET: uri,
        TARIFF_SOURCE_URLS: authority.url('/sigarette.xml'),
      };
      const dataDir = await tempDir();
      const cron = () => runCli(['release', '--quiet', '--data-dir', dataDir], { env });
      const first = await cron();
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toBe('published 20261101.1 (was none)\n');
      expect(first.stderr).toContain(`tariff: warning: ${uri}/ ignores conditional writes (If-None-Match)`);
      // Said once for this bucket and data dir: the next run, with nothing new, is silent.
      expect(await cron()).toEqual({ status: 0, stdout: '', stderr: '' });
      expect(await cron()).toEqual({ status: 0, stdout: '', stderr: '' });
    } finally {
      await authority.close();
      await ignoring.close();
    }
  });
});
