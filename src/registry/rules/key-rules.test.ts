import { describe, expect, it } from 'vitest';
import { keyMatchingPrefix } from './key-rules.ts';

describe('keyMatchingPrefix', () => {
  const rows = [{ prefix: 'ttd_AbCd1234' }, { prefix: 'ttd_AbCd9999' }];
  it('needs a prefix long enough not to name a key by accident', () => {
    expect(() => keyMatchingPrefix([rows[0]!], '', 'a@b.it')).toThrow(
      expect.objectContaining({ code: 'key_prefix_too_short', exitCode: 2 }),
    );
    expect(() => keyMatchingPrefix([rows[0]!], 'ttd_', 'a@b.it')).toThrow(expect.objectContaining({ code: 'key_prefix_too_short' }));
  });
  it('names exactly one key, or says why not', () => {
    expect(keyMatchingPrefix(rows, 'ttd_AbCd1', 'a@b.it')).toBe(rows[0]);
    expect(keyMatchingPrefix(rows, 'ttd_AbCd1234andmore', 'a@b.it')).toBe(rows[0]);
    expect(() => keyMatchingPrefix(rows, 'ttd_AbCd', 'a@b.it')).toThrow(expect.objectContaining({ code: 'key_prefix_ambiguous' }));
    expect(() => keyMatchingPrefix(rows, 'ttd_Zzzz', 'a@b.it')).toThrow(expect.objectContaining({ code: 'key_not_found' }));
  });
});
