import { describe, expect, it } from 'vitest';
import { keptDigests, snapshotsToPrune } from './prune-snapshots.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('snapshotsToPrune', () => {
  it('removes the bytes and description of a digest nothing needs, and nothing else', () => {
    const files = [`${A}.pdf`, `${A}.json`, `${B}.xml`, `${B}.json`, `${B}.pdf.tmp-123`, 'notes.txt', `${'c'.repeat(63)}.pdf`];
    expect(snapshotsToPrune(files, new Set([B]))).toEqual([`${A}.pdf`, `${A}.json`]);
    expect(snapshotsToPrune(files, new Set([A, B]))).toEqual([]);
  });
});

describe('keptDigests', () => {
  const doc = (sha256: string) => ({
    sha256,
    url: `https://adm.example/${sha256.slice(0, 4)}.pdf`,
    effectiveFrom: '2026-11-01',
    fetchedAt: 't',
  });
  const entry = (sha256: string, extra: object = {}) => ({ sha256, fetchedAt: 't', checkedAt: 't', effectiveDates: [], ...extra });

  it('keeps an address given as it is (its last good snapshot, and one waiting for its day)', () => {
    const state = { 'https://adm.example/sigarette.xml': entry(A, { kept: [{ sha256: B, effectiveDates: [] }] }) };
    expect(keptDigests(state, { lists: {}, notices: [] })).toEqual(new Set([A, B]));
  });

  it('keeps of the addresses found through the pages only the documents the next builds read', () => {
    const C = 'c'.repeat(64);
    const state = { 'https://adm.example/old.pdf': entry(A, { kind: 'list' }), 'https://adm.example/new.pdf': entry(B, { kind: 'list' }) };
    expect(keptDigests(state, { lists: { sigarette: [doc(B)] }, notices: [doc(C)] })).toEqual(new Set([B, C]));
  });
});
