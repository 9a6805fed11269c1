import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBarcodeList } from '../../src/dataset/parse-barcode-list.ts';
import { CURRENT_KEY, releaseFileKey } from '../../src/publish/bucket-layout.ts';
import {
  listReleases,
  publishRelease,
  readCurrentManifest,
  rollbackRelease,
  type ReleaseFiles,
} from '../../src/publish/publish-release.ts';
import { buildRelease } from '../../src/release/build-release.ts';
import { sha256Hex } from '../../src/release/gzip.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

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
        maxShrink: 0.2,
        now: () => new Date('2026-11-22T05:00:00Z'),
        scratchDir: await tempDir(),
      }),
    );
  }
  return built;
}

/** A bucket that fails the way a crash or a broken network would, at one chosen key. */
function failing(bucket: Bucket, failOn: (key: string) => boolean, mode: 'throw' | 'corrupt' = 'throw'): Bucket {
  return {
    description: bucket.description,
    get: (key) => bucket.get(key),
    open: (key) => bucket.open(key),
    list: (prefix) => bucket.list(prefix),
    delete: (keys) => bucket.delete(keys),
    async put(key, data, type) {
      if (!failOn(key)) return bucket.put(key, data, type);
      if (mode === 'corrupt') return bucket.put(key, data.subarray(0, data.length - 1), type);
      throw new Error(`injected failure writing ${key}`);
    },
  };
}

let s3: S3Stand;
let s3Prefix = 0;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3?.close();
});

const backends: [string, () => Promise<Bucket>][] = [
  ['local folder', async () => new LocalBucket(await tempDir())],
  ['S3 (s3rver)', async () => new S3Bucket({ bucket: s3.bucket, prefix: `run-${++s3Prefix}/tariff`, env: s3.env, pathStyle: true })],
];

describe.each(backends)('publishing to a %s bucket', (_, open) => {
  it('uploads, verifies and switches the current manifest last', async () => {
    const bucket = await open();
    const [release] = await releases(1);
    const steps: string[] = [];
    const result = await publishRelease(bucket, release!, { keep: 30, onStep: (step) => steps.push(step) });
    expect(result).toEqual({ status: 'published', version: '20261101.1', previousVersion: null, pruned: [] });
    // Three files up, read back, then the switch, then the prune: the current manifest is written last.
    expect(steps).toEqual(['upload', 'upload', 'upload', 'upload', 'switch', 'prune']);
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
      'upload: nothing to upload: 20261101.1 is current and whole',
      'switch: skipped: 20261101.1 is current and whole',
      'prune: skipped: 20261101.1 is current and whole',
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

  it('keeps the last N releases after the switch, and rolls back to a kept one', async () => {
    const bucket = await open();
    const all = await releases(4);
    const pruned: string[][] = [];
    for (const release of all) pruned.push((await publishRelease(bucket, release, { keep: 2 })).pruned);
    expect(pruned).toEqual([[], [], ['20261101.1'], ['20261101.2']]);
    expect(await listReleases(bucket)).toEqual({ versions: ['20261101.3', '20261101.4'], current: '20261101.4', incomplete: [] });

    await expect(rollbackRelease(bucket, '20261101.3')).resolves.toEqual({ version: '20261101.3', previousVersion: '20261101.4' });
    expect((await readCurrentManifest(bucket))!).toEqual(all[2]!.manifest);
    await expect(rollbackRelease(bucket, '20261101.1')).rejects.toMatchObject({
      code: 'release_not_kept',
      message: expect.stringContaining('kept: 20261101.3, 20261101.4'),
    });
  });
});
