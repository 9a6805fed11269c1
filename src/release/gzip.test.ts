import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipDeterministic, gzipDeterministicAsync } from './gzip.ts';

/** Several megabytes of rows, compressible as a release file is: many output pieces of any size. */
const rows = Buffer.from(
  Array.from({ length: 60_000 }, (_, i) => `{"admCode":${i},"name":"PRODOTTO ${(i * 7919) % 100_003}","price":${(i * 31) % 997}}`).join(
    '\n',
  ),
);

describe('gzip of release files', () => {
  it("gives zlib's own bytes at level 6, whatever piece size it writes in, on the thread pool or not", async () => {
    const zlibDefault = gzipSync(rows, { level: 6, memLevel: 9 });
    expect(gzipDeterministic(rows).equals(zlibDefault)).toBe(true);
    expect((await gzipDeterministicAsync(rows)).equals(zlibDefault)).toBe(true);
    expect(gunzipSync(zlibDefault).equals(rows)).toBe(true);
  });

  it('writes no file name and no time in the header', () => {
    const header = gzipDeterministic(Buffer.from('x')).subarray(0, 10);
    expect([...header.subarray(3, 8)]).toEqual([0, 0, 0, 0, 0]);
  });
});
