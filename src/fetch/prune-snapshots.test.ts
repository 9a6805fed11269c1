import { describe, expect, it } from 'vitest';
import { snapshotsToPrune } from './prune-snapshots.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('snapshotsToPrune', () => {
  it('removes the bytes and description of a digest nothing needs, and nothing else', () => {
    const files = [`${A}.pdf`, `${A}.json`, `${B}.xml`, `${B}.json`, `${B}.pdf.tmp-123`, 'notes.txt', `${'c'.repeat(63)}.pdf`];
    expect(snapshotsToPrune(files, new Set([B]))).toEqual([`${A}.pdf`, `${A}.json`]);
    expect(snapshotsToPrune(files, new Set([A, B]))).toEqual([]);
  });
});
