import { describe, expect, it } from 'vitest';
import { digestOfSourceKey, missingSources, sourceKey } from './bucket-sources.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('sources kept in the bucket', () => {
  it('keys a document by its digest, with the extension of its name', () => {
    expect(sourceKey({ sha256: A, name: 'listino-sigari-2026-07-22.pdf' })).toBe(`sources/${A}.pdf`);
    expect(sourceKey({ sha256: A, name: 'https://www.adm.gov.it/portale/documents/20182/2-LIST.PDF?version=1' })).toBe(`sources/${A}.pdf`);
    expect(sourceKey({ sha256: A, name: 'https://example.it/download/42' })).toBe(`sources/${A}`);
    expect(digestOfSourceKey(`sources/${A}.xml`)).toBe(A);
    expect(digestOfSourceKey('sources/other')).toBeNull();
  });

  it('says which documents the bucket lacks, each once, and reads the key of a fresh copy', () => {
    const keys = [`sources/${A}.pdf`];
    expect(
      missingSources(
        [
          { sha256: A, name: 'a.pdf' },
          { sha256: B, name: 'b.pdf' },
          { sha256: B, name: 'c.pdf' },
        ],
        keys,
      ),
    ).toEqual([{ sha256: B, name: 'b.pdf' }]);
    // A fresh copy beside a marked one names the same document.
    expect(digestOfSourceKey(`sources/${B}-0a1b2c3d.pdf`)).toBe(B);
    expect(digestOfSourceKey(`sources/${B}-0a1b.pdf`)).toBeNull();
  });
});
