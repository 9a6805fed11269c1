import { join } from 'node:path';
import { generateTariff } from '../fixtures/generate-tariff.ts';
import { parseBarcodeList } from '../src/dataset/parse-barcode-list.ts';
import type { BuiltRelease } from '../src/pipeline/built-release.ts';
import { buildRelease } from '../src/pipeline/build-release.ts';
import { publishRelease } from '../test/helpers/publish-release.ts';
import { LocalBucket } from '../src/storage/local-bucket.ts';

/**
 * The benchmarks' release: the generated tariff of that size, built for 22 November 2026 and
 * published to `<work>/var/bucket`, the data dir the services under test are started on.
 */
export async function publishGeneratedRelease(
  work: string,
  size: { products: number; barcodes: number },
): Promise<{ built: BuiltRelease; dataDir: string; bucket: LocalBucket }> {
  const generated = generateTariff({ ...size, effectiveFrom: '2026-11-01' });
  const built = await buildRelease({
    sources: generated.documents,
    barcodes: size.barcodes > 0 ? parseBarcodeList(generated.barcodesCsv, 'generated.csv') : [],
    date: '2026-11-22',
    baseUrl: 'http://127.0.0.1/v1',
    previous: null,
    allowShrink: false,
    maxShrinkPercent: 20,
    now: () => new Date(),
    scratchDir: work,
  });
  const dataDir = join(work, 'var');
  const bucket = new LocalBucket(join(dataDir, 'bucket'));
  await publishRelease(bucket, built, { keep: 30 });
  return { built, dataDir, bucket };
}
