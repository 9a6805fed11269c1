import { describe, expect, it } from 'vitest';
import { compareVersions } from '../release/release-version.ts';
import { versionsIn, versionsToPrune } from './bucket-layout.ts';

describe('bucket layout', () => {
  it('orders versions by date, then by sequence number', () => {
    expect(['20261201.1', '20261101.10', '20261101.9', '20261101.2'].sort(compareVersions)).toEqual([
      '20261101.2',
      '20261101.9',
      '20261101.10',
      '20261201.1',
    ]);
  });

  it('finds the versions among the keys', () => {
    expect(
      versionsIn([
        'current.json',
        'releases/20261101.2/manifest.json',
        'releases/20261101.2/dataset.json.gz',
        'releases/20261101.10/manifest.json',
      ]),
    ).toEqual(['20261101.2', '20261101.10']);
  });

  it('prunes all but the newest, never the current one', () => {
    const versions = ['20261101.1', '20261101.2', '20261101.3', '20261201.1'];
    expect(versionsToPrune(versions, 2, '20261201.1')).toEqual(['20261101.2', '20261101.1']);
    expect(versionsToPrune(versions, 2, '20261101.1')).toEqual(['20261101.2']);
    expect(versionsToPrune(versions, 30, '20261201.1')).toEqual([]);
  });
});
