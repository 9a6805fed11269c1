import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../src/barcodes/load-rules.ts';
import { checkItem } from '../../src/barcodes/validate-item.ts';
import { generateApiKey } from '../../src/registry/api-key.ts';
import { createRegistry } from '../../src/registry/open-registry.ts';
import type { Registry } from '../../src/registry/registry.ts';
import type { Queries, Store, Transaction } from '../../src/registry/store.ts';
import { BACKENDS } from '../helpers/registries.ts';

const now = new Date('2026-11-22T10:00:00Z');
const later = new Date(now.getTime() + 60_000);
const hour = '2026-11-22T10:00:00.000Z';

type Where = 'durable' | 'not durable' | 'outside a transaction';

/** A store that records every statement with where it ran, around the real one. */
function recording(store: Store): { store: Store; statements: { sql: string; where: Where }[] } {
  const statements: { sql: string; where: Where }[] = [];
  const wrap = <Q extends Queries>(queries: Q, where: Where): Q => ({
    ...queries,
    dialect: queries.dialect,
    all: (sql, params) => (statements.push({ sql, where }), queries.all(sql, params)),
    one: (sql, params) => (statements.push({ sql, where }), queries.one(sql, params)),
    run: (sql, params) => (statements.push({ sql, where }), queries.run(sql, params)),
  });
  return {
    statements,
    store: {
      ...wrap(store, 'outside a transaction'),
      transaction: (work, options) =>
        store.transaction((tx) => work(wrap<Transaction>(tx, options.durable ? 'durable' : 'not durable')), options),
      close: () => store.close(),
    },
  };
}

const writes = (statements: { sql: string; where: Where }[]) =>
  statements
    .filter(({ sql }) => /^\s*(INSERT|UPDATE|DELETE)/i.test(sql))
    .map(({ sql, where }) => ({ sql: sql.replace(/\s+/g, ' ').trim(), where }));

/** Every kind of change the registry makes, once. */
async function everyChange(r: Registry): Promise<void> {
  const shop = await r.createAccount({ email: 'shop@example.it', type: 'User' }, now);
  const other = await r.createAccount({ email: 'pos@example.it', type: 'Integration' }, now);
  const key = generateApiKey();
  await r.addKey(shop.id, { fingerprint: key.fingerprint, prefix: key.displayPrefix, label: 'cassa' }, now);
  await r.setAdmin('shop@example.it', true, 'test', now);
  await r.setSubmitLimit('shop@example.it', 500, 'test', now);
  const checks = ['8001001001005', '8001001001012'].map((barcode) => checkItem({ barcode, admCode: 1001 }, 'User', () => true));
  await r.submitBarcodes({ account: shop, periodStart: hour, checks }, now);
  const integrationCheck = checkItem({ barcode: '8001001001005', admCode: 1001, contributorRef: 'pv-1' }, 'Integration', () => true);
  await r.submitBarcodes({ account: other, periodStart: hour, checks: [integrationCheck] }, now);
  await r.approveBarcode('08001001001012', { admCode: 1001, kind: 'pack', units: 1 }, 'test', now);
  await r.revokeBarcode('08001001001012', 'test', now);
  await r.setContributorBlocked(other.id, 'pv-1', true, 'test', now);
  await r.setBlocked('pos@example.it', true, 'test', now);
  await r.createSignInToken(shop.id, 'a'.repeat(64), later, now);
  await r.consumeSignInToken('a'.repeat(64), now);
  await r.createSession(shop.id, 'b'.repeat(64), 'csrf', later, now);
  await r.deleteSession('b'.repeat(64));
  await r.deleteAccountSessions(shop.id, now);
  await r.createSignUp(
    { email: 'new@example.it', type: 'Integration', organisation: 'Cassa', rulesVersion: '1', tokenHash: 'c'.repeat(64), expiresAt: later },
    now,
  );
  const waiting = await r.confirmSignUp('c'.repeat(64), ['Integration'], now);
  if (waiting?.outcome === 'awaiting_approval') await r.decideSignUp(waiting.signUp.id, true, 'test', now);
  await r.revokeKey(shop.id, key.displayPrefix, 'test', now);
  await r.audit({ actor: 'test', action: 'note', subject: 'x', before: null, after: null }, now);
  await r.consume(shop.id, 'read', '2026-11-22T00:00:00.000Z', 1, 10);
  await r.countRequest('sign-in:address:shop@example.it', hour, 5);
  await r.purgeExpired(new Date('2026-12-30T00:00:00Z'), 100);
}

describe.each(BACKENDS)('the %s registry keeps the policies decided once for every backend', (_, location) => {
  it('refuses a statement sent to the store itself inside one of its transactions, and still serves it outside', async () => {
    const store = await (await location()).store();
    // On SQLite it would wait for the transaction that waits for it; on PostgreSQL it would run outside it.
    await expect(store.transaction(async () => store.one('SELECT 1 AS one'), { durable: false })).rejects.toThrow(
      'a statement was sent to the store inside one of its transactions: use the transaction given to the work (tx)',
    );
    expect(await store.transaction(async (tx) => tx.one('SELECT 1 AS one'), { durable: false })).toEqual({ one: 1 });
    expect(await store.one('SELECT 1 AS one')).toEqual({ one: 1 });
  });

  it('makes every deliberate change durable, and only the per-request counters and the purge not', async () => {
    const { store, statements } = recording(await (await location()).store());
    await everyChange(createRegistry(store, DEFAULT_RULES));
    const notDurable = writes(statements).filter(({ where }) => where !== 'durable');
    // What a power cut may undo: counters of reads and requests, and a purge that the next one repeats.
    expect(notDurable.length).toBeGreaterThan(0);
    for (const { sql } of notDurable) expect(sql).toMatch(/^(INSERT INTO (usage_counters|request_limits) |DELETE FROM \w+ WHERE \(?\w)/);
    expect(notDurable.filter(({ sql }) => sql.startsWith('DELETE')).every(({ sql }) => / LIMIT \?\)$/.test(sql))).toBe(true);
    expect(writes(statements).filter(({ where }) => where === 'durable').length).toBeGreaterThan(20);
  });

  it("commits a durable transaction to disk, and the engine's own setting shows it", async () => {
    const store = await (await location()).store();
    const level = (tx: Transaction) => (store.dialect.name === 'sqlite' ? tx.one('PRAGMA synchronous') : tx.one('SHOW synchronous_commit'));
    const durable = await store.transaction(level, { durable: true });
    const plain = await store.transaction(level, { durable: false });
    expect(Object.values(durable!)[0]).toBe(store.dialect.name === 'sqlite' ? 2 : 'on');
    expect(Object.values(plain!)[0]).toBe(store.dialect.name === 'sqlite' ? 1 : 'off');
  });

  it('takes reads exactly when many requests of one account arrive together: the first ones in order fit', async () => {
    const r = await (await location()).open();
    const keys = [generateApiKey(), generateApiKey()];
    for (const [i, key] of keys.entries()) {
      const account = await r.createAccount({ email: `shop${i}@example.it`, type: 'User' }, now);
      await r.addKey(account.id, { fingerprint: key.fingerprint, prefix: key.displayPrefix, label: '' }, now);
    }
    const read = { periodStart: '2026-11-22T00:00:00.000Z', limit: 10 };
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => r.authenticate(keys[i % 2]!.fingerprint, now, read)));
    for (const [i] of keys.entries()) {
      const mine = results.filter((_, n) => n % 2 === i).map((result) => result!.read!);
      expect(mine.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, n) => ({ allowed: true, used: n + 1 })));
      expect(mine.slice(10)).toEqual(Array.from({ length: 5 }, () => ({ allowed: false, used: 10 })));
    }
    expect(await r.usage(results[0]!.account.id, 'read', read.periodStart)).toBe(10);
  });

  it("uses up a blocked account's sign-in link: it signs nobody in, not even after an unblock", async () => {
    const r = await (await location()).open();
    const account = await r.createAccount({ email: 'shop@example.it', type: 'User' }, now);
    await r.createSignInToken(account.id, 'a'.repeat(64), later, now);
    await r.setBlocked('shop@example.it', true, 'test', now);
    expect(await r.consumeSignInToken('a'.repeat(64), now)).toBeNull();
    await r.setBlocked('shop@example.it', false, 'test', now);
    expect(await r.signInTokenUsable('a'.repeat(64), now)).toBe(false);
    expect(await r.consumeSignInToken('a'.repeat(64), now)).toBeNull();
  });

  it('recomputes the statuses a block touches in a fixed number of statements, however many barcodes', async () => {
    const { store, statements } = recording(await (await location()).store());
    const r = createRegistry(store, DEFAULT_RULES);
    const voter = await r.createAccount({ email: 'voter@example.it', type: 'User', submitLimit: 1000 }, now);
    const barcodes = (n: number) => Array.from({ length: n }, (_, i) => `80${String(i).padStart(10, '0')}`);
    const withCheckDigit = (body: string) =>
      body + String((10 - ([...body].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0) % 10)) % 10);
    const submit = (n: number) =>
      r.submitBarcodes(
        {
          account: voter,
          periodStart: hour,
          checks: barcodes(n).map((body) => checkItem({ barcode: withCheckDigit(body), admCode: 1001 }, 'User', () => true)),
        },
        now,
      );
    const costOfBlock = async () => {
      statements.length = 0;
      await r.setBlocked('voter@example.it', true, 'test', now);
      await r.setBlocked('voter@example.it', false, 'test', now);
      return statements.length;
    };
    await submit(3);
    const few = await costOfBlock();
    await submit(300);
    expect(await costOfBlock()).toBe(few);
    expect((await r.listBarcodes('to_confirm')).length).toBe(300);
  });
});
