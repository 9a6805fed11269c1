import { planBatch } from '../../barcodes/plan-batch.ts';
import { recordStatus, type BarcodeStatus, type StatusRules } from '../../barcodes/status-rules.ts';
import type { ItemCheck } from '../../barcodes/validate-item.ts';
import type { BarcodeKind } from '../../dataset/model.ts';
import { formatWithOffset } from '../../util/dates.ts';
import { readBarcodeState, saveBarcodes } from './barcode-state.ts';
import { consumeWith } from './counters.ts';
import type { Account, SubmissionRecord, SubmitOutcome } from '../records.ts';
import { matchOf } from '../rows.ts';
import type { Store } from '../store.ts';
import { writeAudit } from './audit.ts';

/** Barcode submissions: a batch recorded at once, and an account's own. Part of the Registry (registry.ts). */
export interface SubmissionRegistry {
  /**
   * Records a batch of submissions in one transaction: takes `checks.length` units from the
   * account's hourly counter (refusing the whole batch, recording nothing, when they do not fit),
   * then records each item that passed `checkItem`, replacing the account's previous vote, and
   * recomputes the barcode's status with the registry's status rules.
   */
  submitBarcodes(input: { account: Account; periodStart: string; checks: ItemCheck[] }, now: Date): Promise<SubmitOutcome>;
  /** The account's current submissions (one per barcode), most recent first. */
  mySubmissions(accountId: number, limit: number, offset: number): Promise<SubmissionRecord[]>;
}

/** Barcode submissions: a batch recorded in one durable transaction, and an account's own submissions. */
export function submissionRules(store: Store, statusRules: StatusRules): SubmissionRegistry {
  return {
    submitBarcodes(input: { account: Account; periodStart: string; checks: ItemCheck[] }, now: Date): Promise<SubmitOutcome> {
      const { account, checks } = input;
      const candidates = checks.flatMap((check) => (check.ok ? [check.candidate] : []));
      const gtins = [...new Set(candidates.map((c) => c.gtin14))];
      const refs = [...new Set(candidates.flatMap((c) => (c.contributorRef === null ? [] : [c.contributorRef])))];
      return store.transaction(
        async (tx): Promise<SubmitOutcome> => {
          const quota = await consumeWith(tx, account.id, 'submit', input.periodStart, checks.length, account.submitLimit);
          if (!quota.allowed) return { allowed: false, used: quota.used };
          const state = await readBarcodeState(tx, gtins, { accountId: account.id, refs });
          const plan = planBatch(account, checks, state, statusRules);
          const at = now.toISOString();
          if (plan.votes.length > 0) {
            const rows = plan.votes.map((v) => ({
              gtin: v.gtin14,
              adm_code: v.admCode,
              kind: v.kind,
              units: v.units,
              contributor_ref: v.contributorRef,
              barcode_as_sent: v.barcodeAsSent,
            }));
            const from = tx.dialect.jsonRows({
              gtin: 'text',
              adm_code: 'integer',
              kind: 'text',
              units: 'integer',
              contributor_ref: 'text',
              barcode_as_sent: 'text',
            });
            await tx.run(
              `INSERT INTO votes (gtin, account_id, adm_code, kind, units, contributor_ref, barcode_as_sent, submitted_at)
               SELECT t.gtin, ?, t.adm_code, t.kind, t.units, t.contributor_ref, t.barcode_as_sent, ? FROM ${from} WHERE true
               ON CONFLICT (gtin, account_id) DO UPDATE SET adm_code = excluded.adm_code, kind = excluded.kind, units = excluded.units,
                 contributor_ref = excluded.contributor_ref, barcode_as_sent = excluded.barcode_as_sent, submitted_at = excluded.submitted_at`,
              [account.id, at, JSON.stringify(rows)],
            );
            // Every vote cast or changed leaves its trace, as an operator's decision does: one entry per batch.
            const after = plan.votes.map((v) => ({ gtin: v.gtin14, admCode: v.admCode, kind: v.kind, units: v.units }));
            await writeAudit(tx, { actor: account.email, action: 'votes.submit', subject: account.email, before: null, after }, now);
          }
          await saveBarcodes(tx, plan.barcodes, at);
          return { allowed: true, used: quota.used, results: plan.results };
        },
        // An accepted submission survives a power cut.
        { durable: true },
      );
    },

    async mySubmissions(accountId: number, limit: number, offset: number): Promise<SubmissionRecord[]> {
      const rows = await store.all(
        `SELECT v.barcode_as_sent, v.adm_code, v.kind, v.units, v.contributor_ref, v.submitted_at,
           b.status, b.adm_code AS b_adm_code, b.kind AS b_kind, b.units AS b_units
         FROM votes v JOIN barcodes b ON b.gtin = v.gtin WHERE v.account_id = ? ORDER BY v.submitted_at DESC, v.gtin LIMIT ? OFFSET ?`,
        [accountId, limit, offset],
      );
      return rows.map((row) => {
        const submitted = { admCode: Number(row.adm_code), kind: row.kind as BarcodeKind, units: Number(row.units) };
        const match = matchOf({ adm_code: row.b_adm_code, kind: row.b_kind, units: row.b_units });
        return {
          barcode: String(row.barcode_as_sent),
          ...submitted,
          contributorRef: (row.contributor_ref as string | null) ?? null,
          submittedAt: formatWithOffset(new Date(String(row.submitted_at))),
          status: recordStatus(submitted, { status: row.status as BarcodeStatus, match }),
        };
      });
    },
  };
}
