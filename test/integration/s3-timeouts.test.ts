import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

/**
 * An S3 endpoint that answers a GET with its headers and the first bytes of the body, then says
 * nothing more, or trickles one byte every `trickleMs`.
 */
async function stallingStore(trickleMs?: number): Promise<string> {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '100000' });
    response.write('x'.repeat(10));
    if (trickleMs === undefined) return;
    const trickle = setInterval(() => response.write('x'), trickleMs);
    response.on('close', () => clearInterval(trickle));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('an S3 store that goes silent mid-answer', () => {
  it('is cut off after TARIFF_S3_IDLE_TIMEOUT_MS of silence, long before the call deadline, with a reason', async () => {
    const bucket = new S3Bucket({
      bucket: 'tariff-releases',
      prefix: 'p',
      pathStyle: true,
      env: { AWS_ENDPOINT_URL_S3: await stallingStore(), AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
      // Only the silence limit can end this call: its deadline is far beyond the test's.
      timeouts: { connectMs: 1_000, idleMs: 300, deadlineMs: 600_000, attempts: 1 },
    });
    await expect(bucket.get('manifest.json')).rejects.toMatchObject({
      code: 'bucket_failed',
      message: expect.stringContaining(
        's3://tariff-releases/p/manifest.json: read: the store went silent for 300 ms (TARIFF_S3_IDLE_TIMEOUT_MS)',
      ),
    });
  });

  it('is cut off at TARIFF_S3_DEADLINE_SECONDS when it trickles, never silent for long', async () => {
    const bucket = new S3Bucket({
      bucket: 'tariff-releases',
      prefix: 'p',
      pathStyle: true,
      env: { AWS_ENDPOINT_URL_S3: await stallingStore(50), AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
      timeouts: { connectMs: 1_000, idleMs: 60_000, deadlineMs: 1_000, attempts: 1 },
    });
    await expect(bucket.get('manifest.json')).rejects.toMatchObject({
      code: 'bucket_failed',
      message: expect.stringContaining('s3://tariff-releases/p/manifest.json: read: no answer within 1 s (TARIFF_S3_DEADLINE_SECONDS)'),
    });
  });
});
