import { createHash } from 'node:crypto';

/**
 * The tables that hold what people did, each in a fixed order, and the columns that change on
 * their own (a key's last use, stamped by every request): what a registry's content digest covers.
 * Left out: the day's request counters and rate limits, sign-in links and sessions (they expire and
 * are purged on their own), the migrations. Tables a registry has not created yet are skipped.
 */
export const WORK_TABLES: { table: string; order: string; volatile?: string[] }[] = [
  { table: 'accounts', order: 'id' },
  { table: 'api_keys', order: 'id', volatile: ['last_used_at'] },
  { table: 'barcodes', order: 'gtin' },
  { table: 'votes', order: 'gtin, account_id' },
  { table: 'blocked_contributors', order: 'account_id, contributor_ref' },
  { table: 'sign_ups', order: 'id' },
  { table: 'audit_log', order: 'id' },
];

/** A table's rows as arrays of values, in the order asked, with their column names; null when the registry has no such table. */
export type RowReader = (
  table: string,
  order: string,
) => Promise<{ columns: string[]; rows: Iterable<unknown[]> | AsyncIterable<unknown[]> } | null>;

/**
 * A digest of every row of the work tables (`sha256:<hex>`): two registries with the same digest
 * hold the same accounts, keys, submissions, votes, moderation, sign-ups and audit log, whatever
 * their counts say (a vote changed in place changes no count). Compared on one engine only. Rows
 * are read as arrays and hashed a row at a time (hundreds of thousands of votes in a second).
 */
export async function workDigest(read: RowReader): Promise<string> {
  const hash = createHash('sha256');
  for (const { table, order, volatile = [] } of WORK_TABLES) {
    const found = await read(table, order);
    if (!found) continue;
    // Columns by name, in name order: the same digest whatever order a migration added them in.
    const kept = found.columns
      .map((name, index) => ({ name, index }))
      .filter(({ name }) => !volatile.includes(name))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    hash.update(`\u0000${table}\u0000${kept.map(({ name }) => name).join(',')}\n`);
    for await (const row of found.rows)
      hash.update(`${JSON.stringify(kept.map(({ index }) => (row[index] === null ? null : String(row[index]))))}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}
