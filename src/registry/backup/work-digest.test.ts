import { describe, expect, it } from 'vitest';
import { workDigest, type RowReader } from './work-digest.ts';

/** A registry as tables of rows, read as the digest reads them. */
const reader =
  (tables: Record<string, Record<string, unknown>[]>): RowReader =>
  async (table) => {
    const rows = tables[table];
    if (!rows) return null;
    const columns = Object.keys(rows[0] ?? { id: 0 });
    return { columns, rows: rows.map((row) => columns.map((column) => row[column])) };
  };

describe('a registry’s content digest', () => {
  it('tells a registry that changed from one that did not, whatever its request counters and key stamps did', async () => {
    const base = {
      accounts: [{ id: 1, email: 'uno@example.it', submit_limit: 100 }],
      api_keys: [{ id: 1, account_id: 1, prefix: 'ttd_abc', last_used_at: '2026-11-26T10:00:00Z' }],
      votes: [{ gtin: '08001001001005', account_id: 1, adm_code: 67 }],
      usage_counters: [{ account_id: 1, used: 3 }],
    };
    const before = await workDigest(reader(base));
    expect(before).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Not people's work: the day's counters (not digested), a key's last use.
    expect(await workDigest(reader({ ...base, usage_counters: [{ account_id: 1, used: 9 }] }))).toBe(before);
    expect(await workDigest(reader({ ...base, api_keys: [{ ...base.api_keys[0]!, last_used_at: '2026-11-27T08:00:00Z' }] }))).toBe(before);
    // People's work: a vote changed in place (no count changes), a limit.
    expect(await workDigest(reader({ ...base, votes: [{ ...base.votes[0]!, adm_code: 20 }] }))).not.toBe(before);
    expect(await workDigest(reader({ ...base, accounts: [{ ...base.accounts[0]!, submit_limit: 500 }] }))).not.toBe(before);
  });
});
