import { describe, expect, it } from 'vitest';
import { jsonOrNull } from './json-or-null.ts';

describe('JSON or null', () => {
  it('parses text and UTF-8 bytes, and gives null for what is not JSON (truncated, empty, binary)', () => {
    expect(jsonOrNull('{"version":"20261101.1"}')).toEqual({ version: '20261101.1' });
    expect(jsonOrNull(Buffer.from('{"città":"Roma"}'))).toEqual({ città: 'Roma' });
    expect(jsonOrNull('{"version":')).toBeNull();
    expect(jsonOrNull(new Uint8Array())).toBeNull();
    expect(jsonOrNull(Buffer.from([0x1f, 0x8b, 0x08]))).toBeNull();
  });
});
