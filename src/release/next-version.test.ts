import { describe, expect, it } from 'vitest';
import { nextVersion } from './next-version.ts';

describe('nextVersion', () => {
  it('starts a tariff date at .1', () => {
    expect(nextVersion('2026-11-15', null, false)).toBe('20261115.1');
    expect(nextVersion('2026-12-01', { version: '20261115.4', tariffDate: '2026-11-15' }, false)).toBe('20261201.1');
  });

  it('keeps the version when the content is the same', () => {
    expect(nextVersion('2026-11-15', { version: '20261115.2', tariffDate: '2026-11-15' }, true)).toBe('20261115.2');
  });

  it('counts up when the content of the same tariff date changes', () => {
    expect(nextVersion('2026-11-15', { version: '20261115.2', tariffDate: '2026-11-15' }, false)).toBe('20261115.3');
    expect(nextVersion('2026-11-15', { version: '20261115.9', tariffDate: '2026-11-15' }, false)).toBe('20261115.10');
  });

  it('numbers past every version still kept, so a version never names two contents', () => {
    expect(nextVersion('2026-11-15', { version: '20261115.2', tariffDate: '2026-11-15' }, false, ['20261115.3', '20261101.7'])).toBe(
      '20261115.4',
    );
    expect(nextVersion('2026-11-15', null, false, ['20261115.1'])).toBe('20261115.2');
  });
});
