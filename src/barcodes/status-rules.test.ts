import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountType } from './account-types.ts';
import { barcodeStatus, recordStatus, type Match, type Vote } from './status-rules.ts';
import { DEFAULT_RULES } from './load-rules.ts';

const A: Match = { admCode: 1001, kind: 'pack', units: 1 };
const B: Match = { admCode: 1001, kind: 'carton', units: 10 };
const vote = (match: Match, accountType: AccountType = 'User'): Vote => ({ ...match, accountType });

describe('barcodeStatus', () => {
  it('follows the rules as written', () => {
    expect(barcodeStatus([vote(A)], null, DEFAULT_RULES)).toEqual({ status: 'to_confirm', match: A });
    expect(barcodeStatus([vote(A), vote(A)], null, DEFAULT_RULES)).toEqual({ status: 'approved', match: A });
    expect(barcodeStatus([vote(A), vote(B)], null, DEFAULT_RULES)).toEqual({ status: 'conflict', match: null });
    expect(barcodeStatus([vote(A), vote(A), vote(B)], null, DEFAULT_RULES).status).toBe('conflict');
    expect(barcodeStatus([], null, DEFAULT_RULES).status).toBe('to_confirm');
  });

  it("lets the administrator's decision override the votes", () => {
    expect(barcodeStatus([vote(A), vote(B)], { decision: 'approved', match: B }, DEFAULT_RULES)).toEqual({ status: 'approved', match: B });
    expect(barcodeStatus([vote(A), vote(A)], { decision: 'revoked' }, DEFAULT_RULES)).toEqual({ status: 'revoked', match: null });
  });

  it('weighs votes by account type when configured', () => {
    const rules = { ...DEFAULT_RULES, weights: { User: 1, Supplier: 2, Integration: 1 } };
    expect(barcodeStatus([vote(A, 'Supplier')], null, rules).status).toBe('approved');
    expect(barcodeStatus([vote(A, 'User')], null, rules).status).toBe('to_confirm');
  });

  it('marks a record outvoted only when the barcode is approved with another match', () => {
    expect(recordStatus(B, { status: 'approved', match: A })).toBe('outvoted');
    expect(recordStatus(A, { status: 'approved', match: A })).toBe('approved');
    expect(recordStatus(B, { status: 'conflict', match: null })).toBe('conflict');
  });

  const matches = fc.constantFrom<Match>(A, B, { admCode: 2001, kind: 'pack', units: 1 });
  const votes = fc.array(
    fc.record({
      account: fc.integer({ min: 1, max: 6 }),
      match: matches,
      type: fc.constantFrom<AccountType>('User', 'Supplier', 'Integration'),
    }),
    { maxLength: 20 },
  );

  it('depends only on the last vote of each account, whatever the order of arrival', () => {
    fc.assert(
      fc.property(votes, fc.func(fc.integer()), (sequence, shuffleKey) => {
        const finalVotes = (list: typeof sequence) => {
          const last = new Map<number, Vote>();
          for (const v of list) last.set(v.account, vote(v.match, v.type));
          return [...last.values()];
        };
        // Another arrival order with the same last vote per account: earlier votes are shuffled, last ones stay last.
        const lastIndex = new Map(sequence.map((v, i) => [v.account, i]));
        const earlier = sequence
          .filter((v, i) => lastIndex.get(v.account) !== i)
          .sort((x, y) => shuffleKey(x.account) - shuffleKey(y.account));
        const last = sequence
          .filter((v, i) => lastIndex.get(v.account) === i)
          .sort((x, y) => shuffleKey(y.account + 7) - shuffleKey(x.account + 7));
        expect(barcodeStatus(finalVotes([...earlier, ...last]), null, DEFAULT_RULES)).toEqual(
          barcodeStatus(finalVotes(sequence), null, DEFAULT_RULES),
        );
      }),
    );
  });

  it('agrees with a direct reading of the rules', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ match: matches, type: fc.constantFrom<AccountType>('User', 'Supplier', 'Integration') }), { maxLength: 8 }),
        (list) => {
          const distinct = new Set(list.map((v) => `${v.match.admCode}/${v.match.kind}/${v.match.units}`));
          const expected = list.length === 0 ? 'to_confirm' : distinct.size > 1 ? 'conflict' : list.length >= 2 ? 'approved' : 'to_confirm';
          expect(
            barcodeStatus(
              list.map((v) => vote(v.match, v.type)),
              null,
              DEFAULT_RULES,
            ).status,
          ).toBe(expected);
        },
      ),
    );
  });
});
