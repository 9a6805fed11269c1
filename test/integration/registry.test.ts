import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fingerprintOf, generateApiKey, looksLikeApiKey } from '../../src/registry/api-key.ts';
import { openSqliteRegistry } from '../../src/registry/open-registry.ts';
import { migrations } from '../../src/registry/schema.ts';
import { SQLITE_DIALECT } from '../../src/registry/sqlite/sqlite-store.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { BACKENDS } from '../helpers/registries.ts';
import { DEFAULT_RULES } from '../../src/barcodes/load-rules.ts';

const now = new Date('2026-11-22T10:00:00Z');
async function registry() {
  const path = join(await tempDir(), 'registry.sqlite');
  return { path, registry: await openSqliteRegistry(path, { rules: DEFAULT_RULES }) };
}

describe.each(BACKENDS)('the %s registry', (_, location) => {
  it('purges expired rows in bounded batches, and keeps what is live', async () => {
    const r = await (await location()).open();
    const account = await r.createAccount({ email: 'shop@example.it', type: 'User' }, now);
    const old = new Date('2026-11-10T10:00:00Z');
    for (let day = 1; day <= 5; day++) await r.consume(account.id, 'read', `2026-11-0${day}T00:00:00.000Z`, 1, 10);
    await r.consume(account.id, 'read', '2026-11-22T00:00:00.000Z', 3, 10);
    for (let i = 0; i < 3; i++) await r.countRequest(`sign-in:client:10.0.0.${i}`, '2026-11-10T10:00:00.000Z', 30);
    await r.countRequest('sign-in:client:10.0.0.9', '2026-11-22T10:00:00.000Z', 30);
    // (Creating a token or session also clears those expired by then: the old ones are made last.)
    await r.createSignInToken(account.id, 'b'.repeat(64), new Date('2026-11-22T10:15:00Z'), now);
    await r.createSignInToken(account.id, 'a'.repeat(64), new Date('2026-11-10T10:15:00Z'), old);
    await r.createSession(account.id, 'd'.repeat(64), 'csrf', new Date('2026-12-01T10:00:00Z'), now);
    await r.createSession(account.id, 'c'.repeat(64), 'csrf', new Date('2026-11-11T10:00:00Z'), old);
    expect(await r.useFormOnce('c'.repeat(64), 'nonce')).toBe(true);
    expect(await r.useFormOnce('c'.repeat(64), 'nonce')).toBe(false);
    expect(await r.useFormOnce('d'.repeat(64), 'nonce')).toBe(true);

    // An unconfirmed sign-up long expired goes; a live one, and a confirmed one, stay.
    await r.createSignUp(
      {
        email: 'viva@example.it',
        type: 'User',
        organisation: 'V',
        rulesVersion: 'r',
        tokenHash: '5'.repeat(64),
        expiresAt: new Date('2026-11-22T11:00:00Z'),
      },
      now,
    );
    await r.createSignUp(
      {
        email: 'vecchia@example.it',
        type: 'User',
        organisation: 'O',
        rulesVersion: 'r',
        tokenHash: '6'.repeat(64),
        expiresAt: new Date('2026-11-10T11:00:00Z'),
      },
      old,
    );
    await r.createSignUp(
      {
        email: 'confermata@example.it',
        type: 'User',
        organisation: 'C',
        rulesVersion: 'r',
        tokenHash: '7'.repeat(64),
        expiresAt: new Date('2026-11-10T11:00:00Z'),
      },
      old,
    );
    await r.confirmSignUp('7'.repeat(64), [], old);

    expect(await r.purgeExpired(now, 2)).toEqual({
      usage_counters: 2,
      request_limits: 2,
      sign_in_tokens: 1,
      sessions: 1,
      key_forms: 1,
      sign_ups: 1,
    });
    expect(await r.purgeExpired(now, 100)).toEqual({
      usage_counters: 3,
      request_limits: 1,
      sign_in_tokens: 0,
      sessions: 0,
      key_forms: 0,
      sign_ups: 0,
    });
    expect(await r.purgeExpired(now, 100)).toEqual({
      usage_counters: 0,
      request_limits: 0,
      sign_in_tokens: 0,
      sessions: 0,
      key_forms: 0,
      sign_ups: 0,
    });
    expect(await r.signUpUsable('5'.repeat(64), now)).toBe(true);
    expect(await r.findAccount('confermata@example.it')).not.toBeNull();
    // What is live is untouched: today's reads, this hour's limit, the valid token, the session and its form mark.
    expect(await r.usage(account.id, 'read', '2026-11-22T00:00:00.000Z')).toBe(3);
    expect((await r.countRequest('sign-in:client:10.0.0.9', '2026-11-22T10:00:00.000Z', 1)).allowed).toBe(false);
    expect(await r.signInTokenUsable('b'.repeat(64), now)).toBe(true);
    expect(await r.findSession('d'.repeat(64), now)).not.toBeNull();
    expect(await r.useFormOnce('d'.repeat(64), 'nonce')).toBe(false);
    // The mark of the expired session went with it: the same token in it would count as new.
    expect(await r.useFormOnce('c'.repeat(64), 'nonce')).toBe(true);
    await r.close();
  });

  it('allows at most 3 active keys per account; revocation is immediate and frees a place', async () => {
    const r = await (await location()).open();
    const account = await r.createAccount({ email: 'shop@example.it', type: 'User' }, now);
    const keys = [generateApiKey(), generateApiKey(), generateApiKey(), generateApiKey()];
    for (const key of keys.slice(0, 3))
      await r.addKey(account.id, { fingerprint: key.fingerprint, prefix: key.displayPrefix, label: '' }, now);
    await expect(
      r.addKey(account.id, { fingerprint: keys[3]!.fingerprint, prefix: keys[3]!.displayPrefix, label: '' }, now),
    ).rejects.toMatchObject({ code: 'too_many_keys' });
    expect(await r.authenticate(keys[0]!.fingerprint, now)).toMatchObject({
      account: { email: 'shop@example.it', type: 'User', blocked: false },
    });
    await r.revokeKey(account.id, keys[0]!.displayPrefix, 'test', now);
    expect(await r.authenticate(keys[0]!.fingerprint, now)).toBeNull();
    await expect(r.revokeKey(account.id, keys[0]!.displayPrefix, 'test', now)).rejects.toMatchObject({ code: 'key_not_found' });
    await r.addKey(account.id, { fingerprint: keys[3]!.fingerprint, prefix: keys[3]!.displayPrefix, label: '' }, now);
    expect(await r.listKeys(account.id)).toHaveLength(3);
    expect(await r.listKeys(account.id, { includeRevoked: true })).toHaveLength(4);
  });

  it('records last use, refuses blocked accounts, and takes a read with the key lookup', async () => {
    const r = await (await location()).open();
    const account = await r.createAccount({ email: 'shop@example.it', type: 'User' }, now);
    const key = generateApiKey();
    await r.addKey(account.id, { fingerprint: key.fingerprint, prefix: key.displayPrefix, label: '' }, now);
    const read = { periodStart: '2026-11-22T00:00:00.000Z', limit: 2 };
    expect((await r.authenticate(key.fingerprint, now, read))!.read).toEqual({ allowed: true, used: 1 });
    expect((await r.authenticate(key.fingerprint, now, read))!.read).toEqual({ allowed: true, used: 2 });
    expect((await r.authenticate(key.fingerprint, now, read))!.read).toEqual({ allowed: false, used: 2 });
    expect((await r.listKeys(account.id))[0]!.lastUsedAt).toBe(now.toISOString());
    await r.setBlocked('shop@example.it', true, 'test', now);
    expect(await r.authenticate(key.fingerprint, now)).toBeNull();
    await expect(r.setBlocked('nobody@example.it', true, 'test', now)).rejects.toMatchObject({ code: 'account_not_found' });
    await expect(r.createAccount({ email: 'shop@example.it', type: 'User' }, now)).rejects.toMatchObject({ code: 'account_exists' });
  });

  it('adds units to counters only while they fit, all or nothing, exactly across instances', async () => {
    const place = await location();
    const [first, second] = [await place.open(), await place.open()];
    const period = '2026-11-22T00:00:00.000Z';
    expect(await first.consume(1, 'submit', period, 60, 100)).toEqual({ allowed: true, used: 60 });
    expect(await second.consume(1, 'submit', period, 41, 100)).toEqual({ allowed: false, used: 60 });
    expect(await second.consume(1, 'submit', period, 40, 100)).toEqual({ allowed: true, used: 100 });
    expect(await first.consume(2, 'submit', period, 101, 100)).toEqual({ allowed: false, used: 0 });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? first : second).consume(7, 'read', period, 1, 10)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(await first.usage(7, 'read', period)).toBe(10);
  });

  it('keeps sign-in tokens single-use and sessions until they expire or are ended', async () => {
    const r = await (await location()).open();
    const account = await r.createAccount({ email: 'shop@example.it', type: 'User' }, now);
    await r.createSignInToken(account.id, 'a'.repeat(64), new Date(now.getTime() + 60_000), now);
    expect(await r.signInTokenUsable('a'.repeat(64), now)).toBe(true);
    expect(await r.consumeSignInToken('a'.repeat(64), new Date(now.getTime() + 61_000))).toBeNull();
    expect(await r.consumeSignInToken('a'.repeat(64), now)).toMatchObject({ email: 'shop@example.it' });
    expect(await r.consumeSignInToken('a'.repeat(64), now)).toBeNull();
    await r.createSession(account.id, 'b'.repeat(64), 'csrf', new Date(now.getTime() + 60_000), now);
    await r.createSession(account.id, 'c'.repeat(64), 'csrf', new Date(now.getTime() + 60_000), now);
    expect(await r.findSession('b'.repeat(64), now)).toMatchObject({ account: { email: 'shop@example.it' }, csrfToken: 'csrf' });
    expect(await r.findSession('b'.repeat(64), new Date(now.getTime() + 61_000))).toBeNull();
    expect(await r.deleteAccountSessions(account.id, now)).toBe(2);
    expect(await r.findSession('c'.repeat(64), now)).toBeNull();
    expect((await r.auditLog(1))[0]).toMatchObject({ action: 'sessions.end_all', subject: 'shop@example.it', after: { ended: 2 } });
    // A restore ends every session and voids every link not used yet, of every account.
    await r.createSession(account.id, 'd'.repeat(64), 'csrf', new Date(now.getTime() + 60_000), now);
    await r.createSignInToken(account.id, 'e'.repeat(64), new Date(now.getTime() + 60_000), now);
    expect(await r.endAllWebAccess(now)).toEqual({ sessions: 1, links: 1 });
    expect(await r.findSession('d'.repeat(64), now)).toBeNull();
    expect(await r.signInTokenUsable('e'.repeat(64), now)).toBe(false);
    expect(await r.consumeSignInToken('e'.repeat(64), now)).toBeNull();
    expect(await r.countRequest('x', 'p', 2)).toEqual({ allowed: true, used: 1 });
    expect(await r.countRequest('x', 'p', 2)).toEqual({ allowed: true, used: 2 });
    expect(await r.countRequest('x', 'p', 2)).toEqual({ allowed: false, used: 2 });
  });

  it('creates an account when a sign-up link is confirmed, once, with the organisation and the rules accepted', async () => {
    const r = await (await location()).open();
    const later = new Date(now.getTime() + 60_000);
    await r.createSignUp(
      {
        email: 'nuova@example.it',
        type: 'User',
        organisation: 'Tabaccheria Nuova',
        rulesVersion: '2026-11',
        tokenHash: 'e'.repeat(64),
        expiresAt: new Date(now.getTime() + 3_600_000),
      },
      now,
    );
    expect(await r.signUpUsable('e'.repeat(64), later)).toBe(true);
    const confirmed = await r.confirmSignUp('e'.repeat(64), ['Integration'], later);
    expect(confirmed).toMatchObject({
      outcome: 'created',
      account: {
        email: 'nuova@example.it',
        type: 'User',
        organisation: 'Tabaccheria Nuova',
        rulesVersion: '2026-11',
        rulesAcceptedAt: now.toISOString(),
        admin: false,
        blocked: false,
      },
    });
    // Single use: the second confirmation, and a look at the used link, find nothing.
    expect(await r.confirmSignUp('e'.repeat(64), ['Integration'], later)).toBeNull();
    expect(await r.signUpUsable('e'.repeat(64), later)).toBe(false);
    // An expired link confirms nothing; a second sign-up of an address that has an account creates nothing.
    await r.createSignUp(
      { email: 'tardi@example.it', type: 'User', organisation: 'X', rulesVersion: '2026-11', tokenHash: 'f'.repeat(64), expiresAt: later },
      now,
    );
    expect(await r.confirmSignUp('f'.repeat(64), [], new Date(later.getTime() + 1))).toBeNull();
    await r.createSignUp(
      {
        email: 'nuova@example.it',
        type: 'Supplier',
        organisation: 'Y',
        rulesVersion: '2026-11',
        tokenHash: '1'.repeat(64),
        expiresAt: new Date(now.getTime() + 3_600_000),
      },
      now,
    );
    expect(await r.confirmSignUp('1'.repeat(64), [], later)).toMatchObject({ outcome: 'existed', account: { type: 'User' } });
    expect((await r.listAccounts()).map((a) => a.email)).toEqual(['nuova@example.it']);
    expect((await r.auditLog(10)).map((e) => [e.action, e.subject, e.actor])).toEqual([
      ['account.sign_up', 'nuova@example.it', 'web (sign-up)'],
    ]);
  });

  it('keeps a sign-up of a type that needs approval waiting until an administrator decides', async () => {
    const r = await (await location()).open();
    for (const [i, email] of ['integrazione@example.it', 'rifiutata@example.it'].entries()) {
      await r.createSignUp(
        {
          email,
          type: 'Integration',
          organisation: `Org ${i}`,
          rulesVersion: '2026-11',
          tokenHash: String(i).repeat(64),
          expiresAt: new Date(now.getTime() + 3_600_000),
        },
        now,
      );
      expect(await r.confirmSignUp(String(i).repeat(64), ['Integration'], now)).toMatchObject({
        outcome: 'awaiting_approval',
        signUp: { email, status: 'awaiting_approval' },
      });
    }
    expect(await r.findAccount('integrazione@example.it')).toBeNull();
    const pending = await r.pendingSignUps();
    expect(pending.map((p) => p.email)).toEqual(['integrazione@example.it', 'rifiutata@example.it']);
    expect(await r.decideSignUp(pending[0]!.id, true, 'web (admin@example.it)', now)).toMatchObject({
      signUp: { status: 'approved', decidedBy: 'web (admin@example.it)' },
      account: { email: 'integrazione@example.it', organisation: 'Org 0', type: 'Integration' },
    });
    expect(await r.decideSignUp(pending[1]!.id, false, 'web (admin@example.it)', now)).toMatchObject({
      signUp: { status: 'refused' },
      account: null,
    });
    expect(await r.decideSignUp(pending[1]!.id, true, 'web (admin@example.it)', now)).toBeNull();
    expect(await r.pendingSignUps()).toEqual([]);
    expect(await r.findAccount('rifiutata@example.it')).toBeNull();
    expect((await r.auditLog(10)).map((e) => e.action)).toEqual(['sign_up.refuse', 'account.sign_up', 'sign_up.approve']);
  });

  it('makes an account an administrator and back, in the audit log', async () => {
    const r = await (await location()).open();
    await r.createAccount({ email: 'capo@example.it', type: 'User' }, now);
    expect((await r.setAdmin('capo@example.it', true, 'operator (cli)', now)).admin).toBe(true);
    expect((await r.findAccount('capo@example.it'))!.admin).toBe(true);
    expect((await r.setAdmin('capo@example.it', false, 'operator (cli)', now)).admin).toBe(false);
    expect((await r.auditLog(1))[0]).toMatchObject({ action: 'account.unadmin', before: { admin: true }, after: { admin: false } });
    await expect(r.setAdmin('nessuno@example.it', true, 'operator (cli)', now)).rejects.toMatchObject({ code: 'account_not_found' });
  });

  it('runs its migrations once, however many instances open it', async () => {
    const place = await location();
    await Promise.all([place.open(), place.open(), place.open()]);
    const again = await place.open();
    expect(await again.listAccounts()).toEqual([]);
  });
});

describe('API keys in the SQLite file', () => {
  it('have a fixed prefix and 256 random bits, and only a fingerprint and the first characters are stored', async () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).toMatch(/^ttd_[A-Za-z0-9_-]{43}$/);
    expect(a.key).not.toBe(b.key);
    expect(looksLikeApiKey(a.key)).toBe(true);
    expect(a.fingerprint).toBe(fingerprintOf(a.key));

    const { path, registry: r } = await registry();
    const account = await r.createAccount({ email: 'shop@example.it', type: 'User' }, now);
    await r.addKey(account.id, { fingerprint: a.fingerprint, prefix: a.displayPrefix, label: 'cassa' }, now);
    await r.close();
    const dump = JSON.stringify(new Database(path, { readonly: true }).prepare('SELECT * FROM api_keys').all());
    expect(dump).toContain(a.fingerprint);
    expect(dump).not.toContain(a.key.slice(12));
  });
});

describe('the SQLite registry file', () => {
  it('keeps an audit log of operator changes, with the state before and after', async () => {
    const { path, registry: r } = await registry();
    await r.createAccount({ email: 'shop@example.it', type: 'Integration', submitLimit: 500 }, now);
    await expect(r.createAccount({ email: 'shop@example.it', type: 'User' }, now)).rejects.toMatchObject({ code: 'account_exists' });
    await r.setSubmitLimit('shop@example.it', 5000, 'operator', now);
    await expect(r.setBlocked('nobody@example.it', true, 'operator', now)).rejects.toMatchObject({ code: 'account_not_found' });
    await r.close();
    const audit = new Database(path, { readonly: true })
      .prepare('SELECT actor, action, subject, before, after FROM audit_log')
      .all() as Record<string, string>[];
    // The account's creation (the refused second one left nothing), then the change, each with its states.
    expect(audit.map((entry) => entry.action)).toEqual(['account.create', 'account.set-limit']);
    expect(audit[0]).toMatchObject({ actor: 'operator (command line)', subject: 'shop@example.it', before: 'null' });
    expect(audit[1]).toMatchObject({ actor: 'operator', action: 'account.set-limit', subject: 'shop@example.it' });
    expect(JSON.parse(audit[1]!.before!).submitLimit).toBe(500);
    expect(JSON.parse(audit[1]!.after!).submitLimit).toBe(5000);
  });

  it('records each migration once, however often it is opened', async () => {
    const { path, registry: r } = await registry();
    await r.close();
    const again = await openSqliteRegistry(path, { rules: DEFAULT_RULES });
    await again.close();
    expect(new Database(path, { readonly: true }).prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({
      n: migrations(SQLITE_DIALECT).length,
    });
  });
});
