import type { BatchState, StoredBarcode } from '../../barcodes/plan-batch.ts';
import { barcodeStatus, type AdminDecision, type BarcodeStatus, type StatusRules } from '../../barcodes/status-rules.ts';
import { adminOf, identityCache, matchOf, toStoredVote } from '../rows.ts';
import type { Transaction } from '../store.ts';

/**
 * Whether a vote counts: its account is vetted and not blocked, nor its contributor (an
 * integration's point of sale) blocked.
 */
const COUNTED = `(a.vetted_at IS NOT NULL AND NOT a.blocked AND NOT EXISTS (
  SELECT 1 FROM blocked_contributors b WHERE b.account_id = v.account_id AND b.contributor_ref = v.contributor_ref)) AS counted`;

/**
 * Locks these barcodes for the rest of the transaction and reads what deciding them needs, in
 * three queries: their rows, all their votes (with whether each counts), and which of `refs` the
 * account has blocked.
 */
export async function readBarcodeState(
  tx: Transaction,
  gtins: string[],
  blocked?: { accountId: number; refs: string[] },
): Promise<BatchState> {
  const d = tx.dialect;
  await tx.lock(gtins.map((gtin) => `barcode:${gtin}`));
  const state: BatchState = { barcodes: new Map(), votes: new Map(gtins.map((gtin) => [gtin, []])), blockedRefs: new Set() };
  for (const row of await tx.all(`SELECT * FROM barcodes WHERE gtin IN ${d.inList('text')}`, [gtins]))
    state.barcodes.set(String(row.gtin), { status: row.status as BarcodeStatus, match: matchOf(row), admin: adminOf(row) });
  const votes = await tx.all(
    `SELECT v.gtin, v.account_id, v.adm_code, v.kind, v.units, a.type, a.email, a.organisation, ${COUNTED}
     FROM votes v JOIN accounts a ON a.id = v.account_id WHERE v.gtin IN ${d.inList('text')}`,
    [gtins],
  );
  const identitiesOf = identityCache();
  for (const row of votes) state.votes.get(String(row.gtin))!.push(toStoredVote(row, identitiesOf));
  if (blocked && blocked.refs.length > 0) {
    const rows = await tx.all(
      `SELECT contributor_ref FROM blocked_contributors WHERE account_id = ? AND contributor_ref IN ${d.inList('text')}`,
      [blocked.accountId, blocked.refs],
    );
    for (const row of rows) state.blockedRefs.add(String(row.contributor_ref));
  }
  return state;
}

/** Stores barcodes' computed status, match and administrator's decision, in one statement. */
export async function saveBarcodes(tx: Transaction, barcodes: (StoredBarcode & { gtin14: string })[], at: string): Promise<void> {
  if (barcodes.length === 0) return;
  const rows = barcodes.map((b) => ({
    gtin: b.gtin14,
    status: b.status,
    adm_code: b.match?.admCode ?? null,
    kind: b.match?.kind ?? null,
    units: b.match?.units ?? null,
    admin_decision: b.admin?.decision ?? null,
  }));
  const from = tx.dialect.jsonRows({
    gtin: 'text',
    status: 'text',
    adm_code: 'integer',
    kind: 'text',
    units: 'integer',
    admin_decision: 'text',
  });
  await tx.run(
    `INSERT INTO barcodes (gtin, status, adm_code, kind, units, admin_decision, updated_at)
     SELECT t.gtin, t.status, t.adm_code, t.kind, t.units, t.admin_decision, ? FROM ${from} WHERE true
     ON CONFLICT (gtin) DO UPDATE SET status = excluded.status, adm_code = excluded.adm_code, kind = excluded.kind,
       units = excluded.units, admin_decision = excluded.admin_decision, updated_at = excluded.updated_at`,
    [at, JSON.stringify(rows)],
  );
}

/**
 * Recomputes these barcodes' status from their counted votes and the administrator's decision
 * (`decision`, when given, replaces it): after a vote, a block or a decision changed.
 */
export async function recomputeBarcodes(
  tx: Transaction,
  gtins: string[],
  now: Date,
  rules: StatusRules,
  decision?: AdminDecision,
): Promise<void> {
  if (gtins.length === 0) return;
  const state = await readBarcodeState(tx, gtins);
  const updated = gtins.map((gtin) => {
    const admin = decision !== undefined ? decision : (state.barcodes.get(gtin)?.admin ?? null);
    const counted = state.votes.get(gtin)!.filter((vote) => vote.counted);
    return { gtin14: gtin, ...barcodeStatus(counted, admin, rules), admin };
  });
  await saveBarcodes(tx, updated, now.toISOString());
}
