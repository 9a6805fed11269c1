import { describe, expect, it } from 'vitest';
import { releaseHealth, type RefreshState } from './release-health.ts';

const at = (iso: string) => new Date(iso);
const state = (overrides: Partial<RefreshState>): RefreshState => ({
  now: at('2026-12-01T12:00:00Z'),
  staleAfterMs: 600_000,
  lastRefreshAt: at('2026-12-01T11:59:00Z'),
  createdAt: at('2026-12-01T08:00:00Z'),
  failingSince: null,
  problem: null,
  fallback: false,
  served: { version: '20261201.1', expires: '2026-12-08T05:00:00.000Z' },
  ...overrides,
});

describe('releaseHealth', () => {
  it('is ok while the last good refresh is recent and the signature holds', () => {
    expect(releaseHealth(state({}))).toMatchObject({ status: 'ok', release: '20261201.1', warning: null, problem: null });
  });

  it('is stale counted from the last good refresh, or from the start before any', () => {
    expect(releaseHealth(state({ lastRefreshAt: at('2026-12-01T11:49:59Z') })).status).toBe('stale');
    expect(releaseHealth(state({ lastRefreshAt: null, createdAt: at('2026-12-01T11:55:00Z') })).status).toBe('ok');
    expect(releaseHealth(state({ lastRefreshAt: null })).status).toBe('stale');
  });

  it('warns within a day of the signature expiring, and is stale once it has', () => {
    const soon = releaseHealth(state({ served: { version: '20261201.1', expires: '2026-12-02T11:00:00.000Z' } }));
    expect(soon).toMatchObject({ status: 'ok', warning: expect.stringContaining('within a day') });
    const expired = releaseHealth(state({ served: { version: '20261201.1', expires: '2026-12-01T12:00:00.000Z' } }));
    expect(expired).toMatchObject({
      status: 'stale',
      warning: null,
      problem: expect.stringContaining('expired on 2026-12-01T12:00:00.000Z'),
    });
  });
});
