import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBarcodeList } from '../../src/dataset/parse-barcode-list.ts';
import { CURRENT_KEY, releaseFileKey } from '../../src/publish/bucket-layout.ts';
import { listReleases, readCurrentManifest, rollbackRelease, type ReleaseFiles } from '../../src/publish/bucket-releases.ts';
import { publishRelease } from '../helpers/publish-release.ts';
import { publishSteps } from '../../src/pipeline/publish-steps.ts';
import { StepRunner } from '../../src/pipeline/step-runner.ts';
import { summarisePlan } from '../../src/publish/plan-publication.ts';
import { buildRelease } from '../../src/pipeline/build-release.ts';
import type { Format } from '../../src/release/manifest.ts';
import { sha256Hex } from '../../src/util/digests.ts';
import { markForDeletion } from '../../src/storage/deferred-deletions.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { inS3Step } from '../helpers/s3-step.ts';

const SAMPLE = new URL('../../fixtures/sample/', import.meta.url);
const sources = ['altri-tabacchi-2026-06-01.xml', 'liquidi-2026-06-01.xml', 'sigarette-2026-11-01.xml', 'sigarette-2026-12-01.xml'].map(
  (name) => ({
    name,
    bytes: readFileSync(new URL(`tariff/${name}`, SAMPLE)),
  }),
);
const barcodes = parseBarcodeList(readFileSync(new URL('barcodes.csv', SAMPLE), 'utf8'), 'barcodes.csv');

/** Successive releases of the sample: one more barcode left out each time, so each has new content. */
async function releases(count: number): Promise<ReleaseFiles[]> {
  const built: ReleaseFiles[] = [];
  for (let i = 0; i < count; i++) {
    const previous = built.at(-1)?.manifest ?? null;
    built.push(
      await buildRelease({
        sources,
        barcodes: barcodes.slice(i),
        date: '2026-11-22',
        baseUrl: 'https://tariff.example/v1',
        previous,
        allowShrink: false,
        maxShrinkPercent: 20,
        now: () => new Date('2026-11-22T05:00:00Z'),
        scratchDir: await tempDir(),
      }),
    );
  }
  return built;
}

/** A bucket that fails the way a crash or a broken network would, at one chosen key. */
function failing(bucket: TestBucket, failOn: (key: string) => boolean, mode: 'throw' | 'corrupt' = 'throw'): Bucket {
  return {
    description: bucket.description,
    get: (key) => bucket.get(key),
    getTagged: (key) => bucket.getTagged(key),
    modified: (key) => bucket.modified(key),
    open: (key) => bucket.open(key),
    list: (prefix) => bucket.list(prefix),
    delete: (keys) => bucket.delete(keys),
    async create(key, data, type) {
      if (!failOn(key)) return bucket.create(key, data, type);
      if (mode === 'corrupt') return bucket.create(key, data.subarray(0, data.length - 1), type);
      throw new Error(`injected failure writing ${key}`);
    },
    async overwrite(key, data, type, expected) {
      if (!failOn(key)) return bucket.overwrite(key, data, type, expected);
      if (mode === 'corrupt') return bucket.overwrite(key, data.subarray(0, data.length - 1), type, expected);
      throw new Error(`injected failure writing ${key}`);
    },
    async putIfUnchanged(key, data, type, expected) {
      if (!failOn(key)) return bucket.putIfUnchanged(key, data, type, expected);
      if (mode === 'corrupt') return bucket.putIfUnchanged(key, data.subarray(0, data.length - 1), type, expected);
      throw new Error(`injected failure writing ${key}`);
    },
  };
}

let s3: S3Stand;
let s3Prefix = 0;
beforeAll(async () => {
  if (inS3Step) s3 = await startS3();
});
afterAll(async () => {
  await s3?.close();
});

/** A bucket a test may also damage, as a disk or an operator would (an unconditional write). */
type TestBucket = LocalBucket | S3Bucket;

// The folder in npm test, Ceph RGW in the S3 step (test/helpers/s3-step.ts).
const backends: [string, () => Promise<TestBucket>][] = inS3Step
  ? [['S3 (Ceph RGW)', async () => new S3Bucket({ bucket: s3.bucket, prefix: `run-${++s3Prefix}/tariff`, env: s3.env, pathStyle: true })]]
  : [['local folder', async () => new LocalBucket(await tempDir())]];

describe.each(backends)('publishing to a %s bucket', (_, open) => {
  it('uploads, verifies and switches the current manifest last', async () => {
    const bucket = await open();
    const [release] = await releases(1);
    const steps: string[] = [];
    const result = await publishRelease(bucket, release!, { keep: 30, onStep: (step) => steps.push(step) });
    expect(result).toEqual({ status: 'published', version: '20261101.1', previousVersion: null, pruned: [] });
    // Three files up, read back, then the switch, then the prune: the current manifest is written last.
    expect(steps).toEqual(['plan', 'upload', 'upload', 'upload', 'upload', 'switch', 'prune']);
    expect(await readCurrentManifest(bucket)).toEqual(release!.manifest);
    const json = await bucket.get(releaseFileKey('20261101.1', 'json'));
    expect(sha256Hex(json!)).toBe(release!.manifest.files.json.sha256);
    const stream = await bucket.open(releaseFileKey('20261101.1', 'sqlite'));
    expect(stream!.size).toBe(release!.manifest.files.sqlite.size);
    stream!.body.destroy();
    expect(await bucket.list('releases/')).toEqual(
      ['dataset.docdb.gz', 'dataset.json.gz', 'dataset.sqlite.gz', 'manifest.json'].map((name) => `releases/20261101.1/${name}`),
    );
  });

  it('does nothing when the release is already current', async () => {
    const bucket = await open();
    const [release] = await releases(1);
    await publishRelease(bucket, release!, { keep: 30 });
    const steps: string[] = [];
    expect(await publishRelease(bucket, release!, { keep: 30, onStep: (step, line) => steps.push(`${step}: ${line}`) })).toMatchObject({
      status: 'already-current',
    });
    expect(steps).toEqual([
      'plan: 20261101.1 is current and whole: nothing to do',
      'upload: skipped: nothing to upload',
      'switch: skipped: 20261101.1 is current already',
      // The prune ran (it sweeps what earlier runs marked) and, with nothing due, said nothing.
    ]);
  });

  it('leaves the previous release current when the upload fails before the switch', async () => {
    const bucket = await open();
    const [first, second] = await releases(2);
    await publishRelease(bucket, first!, { keep: 30 });
    await expect(
      publishRelease(
        failing(bucket, (key) => key === CURRENT_KEY),
        second!,
        { keep: 30 },
      ),
    ).rejects.toMatchObject({
      code: 'bucket_failed',
      message: expect.stringContaining('20261101.1 is still current'),
    });
    expect((await readCurrentManifest(bucket))!.version).toBe('20261101.1');
    await expect(
      publishRelease(
        failing(bucket, (key) => key.endsWith('dataset.docdb.gz')),
        second!,
        { keep: 30 },
      ),
    ).rejects.toMatchObject({ code: 'bucket_failed' });
    expect((await readCurrentManifest(bucket))!.version).toBe('20261101.1');
    // The next run completes the interrupted publish.
    await expect(publishRelease(bucket, second!, { keep: 30 })).resolves.toMatchObject({
      status: 'published',
      version: '20261101.2',
      previousVersion: '20261101.1',
    });
  });

  it('refuses to switch when the bucket does not hold the bytes it was given', async () => {
    const bucket = await open();
    const [first, second] = await releases(2);
    await publishRelease(bucket, first!, { keep: 30 });
    await expect(
      publishRelease(
        failing(bucket, (key) => key.endsWith('dataset.sqlite.gz'), 'corrupt'),
        second!,
        { keep: 30 },
      ),
    ).rejects.toMatchObject({
      code: 'bucket_failed',
      message: expect.stringMatching(/dataset\.sqlite\.gz: the bucket holds \d+ bytes/),
    });
    expect((await readCurrentManifest(bucket))!.version).toBe('20261101.1');
  });

  it('refuses a version already published with other files', async () => {
    const bucket = await open();
    const [first] = await releases(1);
    await publishRelease(bucket, first!, { keep: 30 });
    const impostor = {
      ...first!,
      manifest: {
        ...first!.manifest,
        files: { ...first!.manifest.files, json: { ...first!.manifest.files.json, sha256: '0'.repeat(64) } },
      },
    };
    await expect(publishRelease(bucket, impostor, { keep: 30 })).rejects.toMatchObject({ code: 'version_conflict' });
  });

  it('applies exactly the plan a dry run printed', async () => {
    const bucket = await open();
    const all = await releases(3);
    for (const release of all.slice(0, 2)) await publishRelease(bucket, release, { keep: 2 });
    const lines = (dryRun: boolean) => {
      const said: string[] = [];
      return {
        said,
        run: () =>
          publishSteps(
            new StepRunner({ dryRun, report: (step, line) => said.push(`${step}: ${line}`) }),
            { bucket, keep: 2, run: { storeNow: () => new Date(), retentionMs: 86_400_000 } },
            all[2]!,
          ),
      };
    };
    const dry = lines(true);
    const planned = summarisePlan(await dry.run());
    expect(planned).toMatchObject({ current: '20261101.2', switch: { from: '20261101.2', to: '20261101.3' }, prune: ['20261101.1'] });
    expect(dry.said).toContain('switch: would make 20261101.3 current (was 20261101.2)');
    expect(dry.said).toContain('prune: would keep 2: mark 20261101.1 for removal');
    const real = lines(false);
    expect(summarisePlan(await real.run())).toEqual(planned);
    expect(real.said).toContain('switch: current.json → 20261101.3 (was 20261101.2)');
    expect(real.said).toContain('prune: keep 2: marked releases/20261101.1/ for removal in 24 h');
  });

  it('refuses in the plan, so a dry run fails as the run would: another release under the version, or an older version', async () => {
    const bucket = await open();
    const [first, second] = await releases(2);
    await publishRelease(bucket, second!, { keep: 30 });
    const impostor = { ...first!, manifest: { ...first!.manifest, version: second!.manifest.version } };
    for (const dryRun of [true, false]) {
      const writer = { storeNow: () => new Date(), retentionMs: 86_400_000 };
      const run = (release: ReleaseFiles) => publishSteps(new StepRunner({ dryRun }), { bucket, keep: 30, run: writer }, release);
      await expect(run(impostor)).rejects.toMatchObject({ code: 'version_conflict' });
      await expect(run(first!)).rejects.toMatchObject({
        code: 'version_behind',
        message: expect.stringContaining('20261101.1 is older than the current release 20261101.2'),
      });
    }
    expect((await readCurrentManifest(bucket))!.version).toBe('20261101.2');
  });

  it('repairs the previous current release from an intact copy when publishing the next, and says when none is at hand', async () => {
    const bucket = await open();
    const [first, second, third] = await releases(3);
    await publishRelease(bucket, first!, { keep: 30 });
    const key = releaseFileKey('20261101.1', 'sqlite');
    const damage = () => bucket.put(key, Buffer.from('damaged'), 'application/gzip');
    await damage();
    const copy = { name: 'the local copy', read: async (_: string, format: Format) => first!.files[format] };
    const result = await publishRelease(bucket, second!, { keep: 30, copies: [copy] });
    expect(result).toMatchObject({
      status: 'published',
      version: '20261101.2',
      repaired: [expect.stringContaining(`${key} holds 7 bytes`)],
    });
    expect(sha256Hex((await bucket.get(key))!)).toBe(first!.manifest.files.sqlite.sha256);

    // Kept and damaged with no copy: the new release is published all the same, and the damage is reported.
    await bucket.put(releaseFileKey('20261101.2', 'json'), Buffer.from('damaged'), 'application/gzip');
    expect(await publishRelease(bucket, third!, { keep: 30 })).toMatchObject({
      status: 'published',
      unrepaired: [expect.stringMatching(/releases\/20261101\.2\/dataset\.json\.gz holds 7 bytes .*, and no intact copy is at hand/)],
    });
    // The current release damaged with no copy: nothing else can be done, and the run fails saying so.
    await bucket.put(releaseFileKey('20261101.3', 'docdb'), Buffer.from('damaged'), 'application/gzip');
    const alien = { ...third!, files: { ...third!.files, docdb: Buffer.from('other bytes') } };
    await expect(publishRelease(bucket, alien, { keep: 30 })).rejects.toMatchObject({
      code: 'bucket_damaged',
      message: expect.stringContaining('the current release 20261101.3 is damaged and cannot be repaired'),
    });
  });

  it('keeps the last N releases after the switch, and rolls back to a kept one', async () => {
    const bucket = await open();
    const all = await releases(4);
    const pruned: string[][] = [];
    for (const release of all) pruned.push((await publishRelease(bucket, release, { keep: 2 })).pruned);
    expect(pruned).toEqual([[], [], ['20261101.1'], ['20261101.2']]);
    // Each publish marks what falls beyond --keep; a later one deletes it (here at once: no retention).
    expect(await listReleases(bucket)).toEqual({
      versions: ['20261101.3', '20261101.4'],
      current: '20261101.4',
      incomplete: [],
      marked: ['20261101.2'],
    });
    expect(await bucket.list('releases/20261101.1/')).toEqual([]);
    // A marked release is no rollback target: a sweep may be deleting it.
    await expect(rollbackRelease(bucket, '20261101.2')).rejects.toMatchObject({
      code: 'release_not_kept',
      message: expect.stringContaining('20261101.2 is marked for removal'),
    });

    await expect(rollbackRelease(bucket, '20261101.3')).resolves.toEqual({ version: '20261101.3', previousVersion: '20261101.4' });
    expect((await readCurrentManifest(bucket))!).toEqual(all[2]!.manifest);
    await expect(rollbackRelease(bucket, '20261101.1')).rejects.toMatchObject({
      code: 'release_not_kept',
      message: expect.stringContaining('kept: 20261101.3, 20261101.4'),
    });
  });

  it('a mark made before a rollback (a paused writer’s) never removes the release current again, nor one within --keep', async () => {
    const bucket = await open();
    const all = await releases(3);
    for (const release of all) await publishRelease(bucket, release, { keep: 30 });
    // A writer keeping 1 marked .1 and .3 while they were beyond its --keep; .3 is current again since.
    for (const version of ['20261101.1', '20261101.3'])
      await markForDeletion(bucket, { keys: [], prefix: `releases/${version}/`, reason: 'beyond --keep 1', by: 'test' });
    expect((await listReleases(bucket)).marked).toEqual(['20261101.1']);
    // The next run (no retention here, so every mark is due) keeps what it keeps itself: both stay, their marks dropped.
    const steps: string[] = [];
    await publishRelease(bucket, all[2]!, { keep: 30, onStep: (step, line) => steps.push(`${step}: ${line}`) });
    expect(steps).toContain('prune: kept releases/20261101.1/, releases/20261101.3/: named again since it was marked');
    expect(await listReleases(bucket)).toMatchObject({ versions: ['20261101.1', '20261101.2', '20261101.3'], marked: [] });
    await expect(rollbackRelease(bucket, '20261101.1')).resolves.toMatchObject({ version: '20261101.1' });
  });
});
