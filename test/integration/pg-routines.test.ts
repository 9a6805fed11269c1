import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/registry/api-key.ts';
import { createKey } from '../../src/registry/create-key.ts';
import { PG_URL, postgresLocation } from '../helpers/registries.ts';

const now = new Date('2026-11-22T10:00:00Z');

describe.skipIf(!PG_URL)('the PostgreSQL routines', () => {
  it('puts the authentication function of pg-authenticate.sql back in place whenever the registry opens', async () => {
    const location = await postgresLocation();
    const registry = await location.open();
    const account = await registry.createAccount({ email: 'shop@example.it', type: 'User' }, now);
    const { key } = await createKey(registry, account, 'till', now);
    const read = { periodStart: '2026-11-22T00:00:00.000Z', limit: 10 };
    expect(await registry.authenticate(fingerprintOf(key), now, read)).toMatchObject({ read: { allowed: true, used: 1 } });

    // A function other than the file's (an older builder's, or one changed by hand): it finds no key.
    const store = await location.store();
    await store.exec(`CREATE OR REPLACE FUNCTION tariff_authenticate(fingerprints text[], stamps text[], touch_before text[], periods text[], read_limit integer)
      RETURNS TABLE (ord integer, key_id integer, fingerprint text, account jsonb, period text, used_before integer, used_after integer)
      LANGUAGE sql AS $fn$ SELECT NULL::integer, NULL::integer, NULL::text, NULL::jsonb, NULL::text, NULL::integer, NULL::integer WHERE false $fn$;`);

    const reopened = await location.open();
    expect(await reopened.authenticate(fingerprintOf(key), now, read)).toMatchObject({
      account: { id: account.id },
      read: { allowed: true, used: 2 },
    });
  });
});
