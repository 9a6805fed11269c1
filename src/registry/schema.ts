import { errors } from '../errors.ts';
import type { Dialect, Store } from './store.ts';
import { DEFAULT_SUBMIT_LIMIT } from './records.ts';

/**
 * The registry's schema, one entry per version, applied in order at start; the same tables on
 * both engines, which differ only in how an identity column and a false flag are declared and in
 * SQLite's `WITHOUT ROWID`. Timestamps are ISO 8601 text in UTC on both, so they compare and
 * round-trip alike. Never edit an entry that has shipped: add a new one.
 */
export function migrations({ name, schema: d }: Pick<Dialect, 'name' | 'schema'>): string[] {
  const table = (name: string, body: string, withoutRowid = false) =>
    `CREATE TABLE ${name} (${body}\n  )${withoutRowid ? d.withoutRowid : ''};`;
  return [
    // 1: accounts, keys, counters, the audit log.
    `${table(
      'accounts',
      `
    id ${d.identity},
    email TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL CHECK (type IN ('User', 'Supplier', 'Integration')),
    blocked ${d.falseFlag},
    submit_limit INTEGER NOT NULL DEFAULT ${DEFAULT_SUBMIT_LIMIT},
    created_at TEXT NOT NULL`,
    )}
  ${table(
    'api_keys',
    `
    id ${d.identity},
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    fingerprint TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT`,
  )}
  CREATE INDEX api_keys_account ON api_keys (account_id);
  ${table(
    'usage_counters',
    `
    account_id INTEGER NOT NULL,
    counter TEXT NOT NULL,
    period_start TEXT NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (account_id, counter, period_start)`,
    true,
  )}
  ${table(
    'audit_log',
    `
    id ${d.identity},
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    subject TEXT NOT NULL,
    before TEXT,
    after TEXT`,
  )}`,
    // 2: barcode submissions, votes and moderation.
    `${table(
      'barcodes',
      `
    gtin TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('to_confirm', 'approved', 'conflict', 'revoked')),
    adm_code INTEGER,
    kind TEXT,
    units INTEGER,
    admin_decision TEXT CHECK (admin_decision IN ('approved', 'revoked')),
    updated_at TEXT NOT NULL`,
      true,
    )}
  CREATE INDEX barcodes_status ON barcodes (status);
  ${table(
    'votes',
    `
    gtin TEXT NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    adm_code INTEGER NOT NULL,
    kind TEXT NOT NULL,
    units INTEGER NOT NULL,
    contributor_ref TEXT,
    barcode_as_sent TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    PRIMARY KEY (gtin, account_id)`,
    true,
  )}
  CREATE INDEX votes_account ON votes (account_id, submitted_at DESC, gtin);
  ${table(
    'blocked_contributors',
    `
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    contributor_ref TEXT NOT NULL,
    blocked_at TEXT NOT NULL,
    PRIMARY KEY (account_id, contributor_ref)`,
    true,
  )}`,
    // 3: the website's sign-in links, sessions and request limits.
    `${table(
      'sign_in_tokens',
      `
    token_hash TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT`,
      true,
    )}
  ${table(
    'sessions',
    `
    id_hash TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    csrf_token TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL`,
    true,
  )}
  CREATE INDEX sessions_account ON sessions (account_id);
  ${table(
    'request_limits',
    `
    key TEXT NOT NULL,
    period_start TEXT NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (key, period_start)`,
    true,
  )}`,
    // 4: self-service sign-up (with the usage rules accepted) and administrators.
    `ALTER TABLE accounts ADD COLUMN organisation TEXT;
  ALTER TABLE accounts ADD COLUMN rules_version TEXT;
  ALTER TABLE accounts ADD COLUMN rules_accepted_at TEXT;
  ALTER TABLE accounts ADD COLUMN admin ${d.falseFlag};
  ${table(
    'sign_ups',
    `
    id ${d.identity},
    email TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('User', 'Supplier', 'Integration')),
    organisation TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'unconfirmed'
      CHECK (status IN ('unconfirmed', 'awaiting_approval', 'approved', 'refused', 'created', 'existed')),
    confirmed_at TEXT,
    decided_at TEXT,
    decided_by TEXT`,
  )}
  CREATE INDEX sign_ups_status ON sign_ups (status, created_at);`,
    // 5: a counter remembers how much its last increment added (so that one statement can raise
    // many counters and say what each took: PostgreSQL's tariff_authenticate, pg-authenticate.sql,
    // applied after the migrations); PostgreSQL compares the hashes and periods it looks up byte
    // for byte, as SQLite always does (a locale's collation costs several times more per comparison).
    `ALTER TABLE usage_counters ADD COLUMN applied INTEGER NOT NULL DEFAULT 0;
    ${name === 'postgres' ? PG_BYTE_ORDER : ''}`,
    // 6: from when an account's votes count (null: a self-service account not yet vetted). The
    // accounts there were count as they did.
    `ALTER TABLE accounts ADD COLUMN vetted_at TEXT;
  UPDATE accounts SET vetted_at = created_at;`,
    // 7: the one-time marks of the key form (a reload must not create a second key) in a table of
    // their own, by session, instead of request-limit rows with the period 'once'.
    `${table(
      'form_uses',
      `
    session_hash TEXT NOT NULL,
    nonce TEXT NOT NULL,
    PRIMARY KEY (session_hash, nonce)`,
      true,
    )}
  INSERT INTO form_uses (session_hash, nonce)
    SELECT substr(key, 10, 64), substr(key, 75) FROM request_limits WHERE period_start = 'once' AND key LIKE 'key-form:%';
  DELETE FROM request_limits WHERE period_start = 'once';`,
  ];
}

/** Opaque keys (hashes, period starts) in byte order: what they are looked up by needs no locale. */
const PG_BYTE_ORDER = `
  ALTER TABLE api_keys ALTER COLUMN fingerprint TYPE text COLLATE "C";
  ALTER TABLE usage_counters ALTER COLUMN counter TYPE text COLLATE "C", ALTER COLUMN period_start TYPE text COLLATE "C";
  ALTER TABLE request_limits ALTER COLUMN key TYPE text COLLATE "C", ALTER COLUMN period_start TYPE text COLLATE "C";
  ALTER TABLE sessions ALTER COLUMN id_hash TYPE text COLLATE "C";
  ALTER TABLE sign_in_tokens ALTER COLUMN token_hash TYPE text COLLATE "C";
  ALTER TABLE sign_ups ALTER COLUMN token_hash TYPE text COLLATE "C";
  ALTER TABLE barcodes ALTER COLUMN gtin TYPE text COLLATE "C";
  ALTER TABLE votes ALTER COLUMN gtin TYPE text COLLATE "C";`;

/**
 * Applies the versions not yet applied, each in its own transaction under a lock, so instances
 * that start at once apply each version once; then the dialect's routines (CREATE OR REPLACE),
 * under the same lock, so the database runs the routines of the code that opened it.
 */
export async function migrate(store: Store, now: Date = new Date()): Promise<void> {
  const versions = migrations(store.dialect);
  for (let version = 0; version <= versions.length; version++) {
    await store.transaction(
      async (tx) => {
        await tx.lock(['schema_migrations']);
        if (version === 0) {
          await tx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
          // A registry a newer tariff migrated has tables and columns this one does not know: never opened.
          const newest = Number((await tx.one('SELECT max(version) AS v FROM schema_migrations'))?.v ?? 0);
          if (newest > versions.length) throw errors.registryNewerSchema(newest, versions.length);
          return;
        }
        if (await tx.one('SELECT 1 FROM schema_migrations WHERE version = ?', [version])) return;
        await tx.exec(versions[version - 1]!);
        await tx.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [version, now.toISOString()]);
      },
      { durable: true },
    );
  }
  const { routines } = store.dialect;
  if (routines.length === 0) return;
  await store.transaction(
    async (tx) => {
      await tx.lock(['schema_migrations']);
      for (const routine of routines) await tx.exec(routine);
    },
    { durable: true },
  );
}

/** The newest schema version this tariff knows (its migrations' count, the same on both engines). */
export const SCHEMA_VERSION = migrations({ name: 'sqlite', schema: { identity: '', falseFlag: '', withoutRowid: '' } }).length;
