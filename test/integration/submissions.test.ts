import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import { barcodeStatus, type Match, type Vote } from '../../src/barcodes/status-rules.ts';
import { DEFAULT_RULES } from '../../src/barcodes/load-rules.ts';
import { checkItem } from '../../src/barcodes/validate-item.ts';
import type { Account } from '../../src/registry/registry.ts';
import { BACKENDS, type RegistryLocation } from '../helpers/registries.ts';

const now = new Date('2026-11-22T10:00:00Z');
const PERIOD = '2026-11-22T10:00:00.000Z';
const MATCHES: Match[] = [
  { admCode: 1001, kind: 'pack', units: 1 },
  { admCode: 1001, kind: 'carton', units: 10 },
  { admCode: 1002, kind: 'pack', units: 1 },
];
const BARCODES = ['8001001001005', '8001001001012', '8001001002002'];
/** A valid EAN-13 from a 12-digit body. */
const ean13 = (body: string) => `${body}${gs1CheckDigit(body)}`;

async function setUp(open: () => Promise<RegistryLocation>, accounts = 4) {
  const registry = await (await open()).open();
  const list: Account[] = [];
  for (let i = 0; i < accounts; i++)
    list.push(
      await registry.createAccount({ email: `a${i}@example.it`, type: i === 0 ? 'Integration' : 'User', submitLimit: 10_000 }, now),
    );
  const submit = (account: Account, items: unknown[]) =>
    registry.submitBarcodes(
      {
        account,
        periodStart: PERIOD,
        checks: items.map((item) => checkItem(item, account.type, (code) => code === 1001 || code === 1002)),
      },
      now,
    );
  return { registry, accounts: list, submit };
}

describe.each(BACKENDS)('submissions in the %s registry', (_, location) => {
  it('keep every barcode status equal to the rules applied to the last vote of each account, whatever the order', async () => {
    // One registry for every run (a PostgreSQL schema costs its migrations): each run votes on barcodes of its own.
    const { registry, accounts, submit } = await setUp(location);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            account: fc.integer({ min: 0, max: 3 }),
            barcode: fc.integer({ min: 0, max: 2 }),
            match: fc.integer({ min: 0, max: 2 }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (sequence) => {
          run += 1;
          const barcodes = [0, 1, 2].map((i) => ean13(`80019${String(run * 3 + i).padStart(7, '0')}`));
          for (const step of sequence) await submit(accounts[step.account]!, [{ barcode: barcodes[step.barcode], ...MATCHES[step.match] }]);
          for (let b = 0; b < barcodes.length; b++) {
            const last = new Map<number, Vote>();
            for (const step of sequence.filter((s) => s.barcode === b))
              last.set(step.account, { ...MATCHES[step.match]!, accountType: accounts[step.account]!.type });
            const { summary } = await registry.barcodeVotes(barcodes[b]!.padStart(14, '0'));
            if (last.size === 0) expect(summary).toBeNull();
            else expect(summary).toMatchObject({ status: barcodeStatus([...last.values()], null, DEFAULT_RULES).status, votes: last.size });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('count the accounts of one mailbox as one organisation: they neither approve alone nor make a conflict', async () => {
    const { registry, accounts, submit } = await setUp(location);
    const plus = [];
    for (const email of ['anna+1@tabacchi.it', 'anna+2@tabacchi.it'])
      plus.push(await registry.createAccount({ email, type: 'User', submitLimit: 100 }, now));
    const [barcode] = BARCODES;
    await submit(plus[0]!, [{ barcode, admCode: 1002 }]);
    expect(await submit(plus[1]!, [{ barcode, admCode: 1002 }])).toMatchObject({
      results: [{ outcome: 'accepted', status: 'to_confirm' }],
    });
    expect((await registry.barcodeVotes(BARCODES[0]!.padStart(14, '0'))).votes).toMatchObject([
      { email: 'anna+1@tabacchi.it', counted: true, notCounted: null },
      { email: 'anna+2@tabacchi.it', counted: false, notCounted: 'same_organisation', sameOrganisationAs: 'anna+1@tabacchi.it' },
    ]);
    expect(await registry.approvedBarcodes()).toEqual([]);

    // Two real organisations approve; the one mailbox voting two ways does not turn that into a conflict.
    await submit(accounts[1]!, [{ barcode, admCode: 1001 }]);
    await submit(accounts[2]!, [{ barcode, admCode: 1001 }]);
    expect(await submit(plus[0]!, [{ barcode, admCode: 1001 }])).toMatchObject({ results: [{ status: 'approved' }] });
    expect((await registry.barcodeVotes(BARCODES[0]!.padStart(14, '0'))).votes.filter((v) => v.email.startsWith('anna'))).toMatchObject([
      { notCounted: 'organisation_disagrees' },
      { notCounted: 'organisation_disagrees' },
    ]);
  });

  it("count a self-service account's votes only once it is vetted: after the vetting days, or by the operator", async () => {
    const { registry, accounts, submit } = await setUp(location);
    /** An account made as the website makes it: a sign-up, confirmed by its link. */
    const signedUp = async (email: string, organisation: string, at: Date) => {
      const tokenHash = email.replace(/\W/g, '').padEnd(64, '0').slice(0, 64);
      await registry.createSignUp(
        { email, type: 'User', organisation, rulesVersion: '1', tokenHash, expiresAt: new Date(at.getTime() + 3_600_000) },
        at,
      );
      const confirmed = await registry.confirmSignUp(tokenHash, [], at);
      return { ...(confirmed as { account: Account }).account, submitLimit: 100 };
    };
    const [first, second] = [await signedUp('uno@tabacchi.it', 'Uno', now), await signedUp('due@altro.it', 'Due', now)];
    expect(first.vettedAt).toBeNull();
    const [barcode, other] = BARCODES;
    const gtin = barcode!.padStart(14, '0');
    await submit(first, [{ barcode, admCode: 1002 }]);
    // Two fresh accounts, two mailboxes, two organisations: together they still decide nothing.
    expect(await submit(second, [{ barcode, admCode: 1002 }])).toMatchObject({ results: [{ outcome: 'accepted', status: 'to_confirm' }] });
    expect(await submit(second, [{ barcode: other, admCode: 1001 }])).toMatchObject({ results: [{ status: 'to_confirm' }] });
    expect((await registry.barcodeVotes(gtin)).votes).toMatchObject([
      { email: 'due@altro.it', counted: false, notCounted: 'not_vetted' },
      { email: 'uno@tabacchi.it', counted: false, notCounted: 'not_vetted', countsFrom: '2026-11-29T10:00:00.000Z' },
    ]);
    // Nor can they put an approved barcode into conflict.
    await submit(accounts[1]!, [{ barcode: other, admCode: 1002 }]);
    await submit(accounts[2]!, [{ barcode: other, admCode: 1002 }]);
    expect((await registry.barcodeVotes(other!.padStart(14, '0'))).summary!.status).toBe('approved');

    const day = 86_400_000;
    expect(await registry.vetAccountsOfAge(new Date(now.getTime() + 6 * day))).toEqual([]);
    expect((await registry.barcodeVotes(gtin)).summary!.status).toBe('to_confirm');
    await registry.setBlocked('due@altro.it', true, 'test', now);
    expect(await registry.vetAccountsOfAge(new Date(now.getTime() + 7 * day))).toEqual(['uno@tabacchi.it']);
    expect((await registry.barcodeVotes(gtin)).votes).toMatchObject([{ notCounted: 'blocked' }, { counted: true }]);
    await registry.setBlocked('due@altro.it', false, 'test', now);
    await registry.vetAccount('due@altro.it', 'test', now);
    expect((await registry.barcodeVotes(gtin)).summary).toMatchObject({ status: 'approved', match: MATCHES[2] });
    expect((await registry.barcodeVotes(other!.padStart(14, '0'))).summary!.status).toBe('conflict');
    expect((await registry.auditLog(2)).map((entry) => [entry.action, entry.subject])).toEqual([
      ['account.vet', 'due@altro.it'],
      ['account.unblock', 'due@altro.it'],
    ]);
  });

  it('treat a GTIN written with 12, 13 or 14 digits as one barcode, and echo it as sent', async () => {
    const { registry, accounts, submit } = await setUp(location);
    const upc = '036000291452';
    await submit(accounts[1]!, [{ barcode: upc, admCode: 1001 }]);
    const second = await submit(accounts[2]!, [{ barcode: `00${upc}`, admCode: 1001 }]);
    expect(second).toMatchObject({ allowed: true, results: [{ barcode: `00${upc}`, outcome: 'accepted', status: 'approved' }] });
    expect(await registry.approvedBarcodes()).toEqual([{ barcode: `0${upc}`, admCode: 1001, kind: 'pack', units: 1 }]);
  });

  it('refuse a batch larger than what remains, recording nothing', async () => {
    const { registry, accounts } = await setUp(location);
    const account = { ...accounts[1]!, submitLimit: 3 };
    const checks = BARCODES.concat(BARCODES[0]!).map((barcode) => checkItem({ barcode, admCode: 1001 }, 'User', () => true));
    expect(await registry.submitBarcodes({ account, periodStart: PERIOD, checks }, now)).toEqual({
      allowed: false,
      used: 0,
    });
    expect(await registry.mySubmissions(account.id, 10, 0)).toEqual([]);
    expect(await registry.submitBarcodes({ account, periodStart: PERIOD, checks: checks.slice(0, 3) }, now)).toMatchObject({
      allowed: true,
      used: 3,
    });
  });

  it('stop counting the votes of a blocked contributor or account, and refuse its submissions', async () => {
    const { registry, accounts, submit } = await setUp(location);
    const [integration, user] = [accounts[0]!, accounts[1]!];
    await submit(integration, [{ barcode: BARCODES[0], admCode: 1001, contributorRef: 'shop-1' }]);
    await submit(user, [{ barcode: BARCODES[0], admCode: 1001 }]);
    const gtin = BARCODES[0]!.padStart(14, '0');
    expect((await registry.barcodeVotes(gtin)).summary!.status).toBe('approved');
    await registry.setContributorBlocked(integration.id, 'shop-1', true, 'test', now);
    expect((await registry.barcodeVotes(gtin)).summary!.status).toBe('to_confirm');
    expect(await submit(integration, [{ barcode: BARCODES[1], admCode: 1001, contributorRef: 'shop-1' }])).toMatchObject({
      results: [{ outcome: 'rejected', reason: 'contributor_blocked' }],
    });
    await registry.setContributorBlocked(integration.id, 'shop-1', false, 'test', now);
    expect((await registry.barcodeVotes(gtin)).summary!.status).toBe('approved');
    await registry.setBlocked('a1@example.it', true, 'test', now);
    expect((await registry.barcodeVotes(gtin)).summary!.status).toBe('to_confirm');
  });

  it("keep an administrator's approval until the administrator changes it, and refuse submissions to a revoked barcode", async () => {
    const { registry, accounts, submit } = await setUp(location);
    const gtin = BARCODES[0]!.padStart(14, '0');
    await submit(accounts[1]!, [{ barcode: BARCODES[0], admCode: 1002 }]);
    await registry.approveBarcode(gtin, MATCHES[0]!, 'admin', now);
    await submit(accounts[2]!, [{ barcode: BARCODES[0], admCode: 1002 }]);
    expect((await registry.barcodeVotes(gtin)).summary).toMatchObject({ status: 'approved', match: MATCHES[0], adminDecision: 'approved' });
    expect((await registry.mySubmissions(accounts[1]!.id, 10, 0))[0]!.status).toBe('outvoted');
    await registry.revokeBarcode(gtin, 'admin', now);
    expect(await submit(accounts[3]!, [{ barcode: BARCODES[0], admCode: 1001 }])).toMatchObject({
      results: [{ outcome: 'rejected', reason: 'barcode_revoked' }],
    });
    expect(await registry.approvedBarcodes()).toEqual([]);
  });
});
