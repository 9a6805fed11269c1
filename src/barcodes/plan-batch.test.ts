import { describe, expect, it } from 'vitest';
import { planBatch, type BatchState } from './plan-batch.ts';
import { DEFAULT_RULES } from './load-rules.ts';
import { checkItem } from './validate-item.ts';

const pack = (admCode: number) => ({ admCode, kind: 'pack' as const, units: 1 });
const item = (admCode: number) => checkItem({ barcode: '8001001001005', admCode }, 'User', () => true);
const GTIN = '08001001001005';

/** A barcode approved for 1001 by two accounts (ids 1 and 2). */
const approved = (): BatchState => ({
  barcodes: new Map([[GTIN, { status: 'approved', match: pack(1001), admin: null }]]),
  votes: new Map([
    [
      GTIN,
      [1, 2].map((accountId) => ({
        ...pack(1001),
        accountId,
        accountType: 'User' as const,
        identities: [`mailbox:shop${accountId}@example.it`],
        counted: true,
      })),
    ],
  ]),
  blockedRefs: new Set(),
});

const VETTED = '2026-11-01T00:00:00.000Z';
const shop3 = { id: 3, type: 'User' as const, email: 'shop3@example.it', organisation: null, vettedAt: VETTED };

describe('planBatch', () => {
  it("stores a vote that changes nothing of the barcode's status or match, without rewriting the barcode", () => {
    const plan = planBatch(shop3, [item(1001)], approved(), DEFAULT_RULES);
    expect(plan.results[0]).toMatchObject({ outcome: 'accepted', status: 'approved' });
    expect(plan.votes).toHaveLength(1);
    expect(plan.barcodes).toEqual([]);
  });

  it('rewrites the barcode with its final state when the batch changes it, even through a state in between', () => {
    const changed = planBatch(shop3, [item(1002)], approved(), DEFAULT_RULES);
    expect(changed.barcodes).toEqual([{ gtin14: GTIN, status: 'conflict', match: null, admin: null }]);
    // The account changes its mind within the batch: the barcode ends as it started, nothing to rewrite.
    const back = planBatch(shop3, [item(1002), item(1001)], approved(), DEFAULT_RULES);
    expect(back.results.map((result) => result.status)).toEqual(['conflict', 'approved']);
    expect(back.votes).toEqual([expect.objectContaining({ admCode: 1001 })]);
    expect(back.barcodes).toEqual([]);
  });

  it('counts an account of an organisation that already voted as the same vote, not a second one', () => {
    // planBatch works on the state it is given, as the transaction's: a fresh one for each plan.
    const state = (): BatchState => ({
      barcodes: new Map([[GTIN, { status: 'to_confirm', match: pack(1001), admin: null }]]),
      votes: new Map([[GTIN, [{ ...pack(1001), accountId: 1, accountType: 'User', identities: ['mailbox:anna@x.it'], counted: true }]]]),
      blockedRefs: new Set(),
    });
    const sameMailbox = { id: 2, type: 'User' as const, email: 'Anna+2@x.it', organisation: null, vettedAt: VETTED };
    expect(planBatch(sameMailbox, [item(1001)], state(), DEFAULT_RULES).results[0]).toMatchObject({ status: 'to_confirm' });
    // Disagreeing with itself, the organisation does not count: no conflict, and still no quorum.
    expect(planBatch(sameMailbox, [item(1002)], state(), DEFAULT_RULES).results[0]).toMatchObject({ status: 'to_confirm' });
    expect(planBatch(shop3, [item(1001)], state(), DEFAULT_RULES).results[0]).toMatchObject({ status: 'approved' });
  });

  it('writes a new barcode', () => {
    const empty: BatchState = { barcodes: new Map(), votes: new Map(), blockedRefs: new Set() };
    expect(planBatch(shop3, [item(1001)], empty, DEFAULT_RULES).barcodes).toEqual([
      { gtin14: GTIN, status: 'to_confirm', match: pack(1001), admin: null },
    ]);
  });

  it("records a vote of an account not yet vetted without counting it: the barcode's status does not move", () => {
    const fresh = { ...shop3, vettedAt: null };
    const oneVote = (): BatchState => ({ ...approved(), barcodes: new Map(), votes: new Map([[GTIN, [approved().votes.get(GTIN)![0]!]]]) });
    const plan = planBatch(fresh, [item(1001)], oneVote(), DEFAULT_RULES);
    expect(plan.results[0]).toMatchObject({ outcome: 'accepted', status: 'to_confirm' });
    expect(plan.votes).toHaveLength(1);
    expect(planBatch(shop3, [item(1001)], oneVote(), DEFAULT_RULES).results[0]).toMatchObject({ status: 'approved' });
  });
});
