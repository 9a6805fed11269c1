import { describe, expect, it } from 'vitest';
import { TariffError } from '../errors.ts';
import { BUCKET_FORMAT, formatObject, formatRefusal, parseBucketFormat, READS_FORMAT, WRITES_FORMAT } from './bucket-format.ts';

const WHERE = 'folder /srv/bucket/tariff-bucket.json';
const format = (version: number, minReaderVersion: number, minWriterVersion: number) =>
  parseBucketFormat(
    Buffer.from(JSON.stringify({ format: 'tariff-bucket', version, minReaderVersion, minWriterVersion, createdBy: 'tariff 9.0.0' })),
    WHERE,
  );

describe('the bucket format', () => {
  it('is written as this version reads and writes it, and read back the same', () => {
    const written = parseBucketFormat(formatObject('tariff 2.0.0'), WHERE);
    expect(written).toEqual({ format: 'tariff-bucket', version: 3, minReaderVersion: 3, minWriterVersion: 3, createdBy: 'tariff 2.0.0' });
    expect(BUCKET_FORMAT).toBe(READS_FORMAT);
    expect(formatRefusal(written, 'read', WHERE)).toBeNull();
    expect(formatRefusal(written, 'write', WHERE)).toBeNull();
  });

  it('a bucket without one (the older layout) is read and written', () => {
    expect(formatRefusal(null, 'read', WHERE)).toBeNull();
    expect(formatRefusal(null, 'write', WHERE)).toBeNull();
  });

  it('refuses by the oldest versions a format asks for, never by its own number', () => {
    const readable = format(WRITES_FORMAT + 1, READS_FORMAT, WRITES_FORMAT + 1);
    expect(formatRefusal(readable, 'read', WHERE)).toBeNull();
    const refusal = formatRefusal(readable, 'write', WHERE)!;
    expect(refusal).toBeInstanceOf(TariffError);
    expect(refusal.code).toBe('bucket_format_newer');
    expect(refusal.message).toBe(
      `${WHERE}: the bucket is of format 4 (written by tariff 9.0.0), which needs a writer of format 4; this tariff writes format 3 at most`,
    );
    expect(formatRefusal(format(4, READS_FORMAT + 1, WRITES_FORMAT + 1), 'read', WHERE)?.code).toBe('bucket_format_newer');
  });

  it('keeps what a later format adds, and judges only the versions', () => {
    const later = parseBucketFormat(
      Buffer.from(
        JSON.stringify({ format: 'tariff-bucket', version: 4, minReaderVersion: 2, minWriterVersion: 2, createdBy: 'x', features: ['y'] }),
      ),
      WHERE,
    );
    expect(later).toMatchObject({ features: ['y'] });
    expect(formatRefusal(later, 'write', WHERE)).toBeNull();
  });

  it.each([
    ['not JSON', '{"format": "tariff-buck'],
    ['another format', '{"format":"restic","version":2,"minReaderVersion":2,"minWriterVersion":2,"createdBy":"x"}'],
    ['a version missing', '{"format":"tariff-bucket","version":2,"minWriterVersion":2,"createdBy":"x"}'],
    ['a version not whole', '{"format":"tariff-bucket","version":2,"minReaderVersion":2.5,"minWriterVersion":2,"createdBy":"x"}'],
  ])('refuses a damaged one by name: %s', (_what, text) => {
    expect(() => parseBucketFormat(Buffer.from(text), WHERE)).toThrow(expect.objectContaining({ code: 'bucket_format_unreadable' }));
  });
});
