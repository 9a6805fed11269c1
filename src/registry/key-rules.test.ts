import { describe, expect, it } from 'vitest';
import { cleanLabel, keyMatchingPrefix, MAX_LABEL_LENGTH } from './key-rules.ts';

describe('cleanLabel', () => {
  it('keeps one line of printable text with single spaces', () => {
    const raw = ['cassa 1', 'cassa\u001b[2J\u0007 1', '\u202Eevil\u202C name\r\nnext', '  many   spaces\t'];
    expect(raw.map(cleanLabel)).toEqual(['cassa 1', 'cassa [2J 1', 'evil name next', 'many spaces']);
  });

  it('bounds the length, counting characters, not bytes', () => {
    expect([...cleanLabel('è'.repeat(500))]).toHaveLength(MAX_LABEL_LENGTH);
  });
});

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
