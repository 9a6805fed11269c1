import { signUpSchema } from './sign-up-schema.ts';

/**
 * The registry's schema on PostgreSQL, version for version the same as SQLITE_MIGRATIONS
 * (timestamps are ISO 8601 text in UTC on both, so they compare and round-trip alike).
 */
export const PG_MIGRATIONS: string[] = [
  `
  CREATE TABLE accounts (
    id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL CHECK (type IN ('User', 'Supplier', 'Integration')),
    blocked BOOLEAN NOT NULL DEFAULT false,
    submit_limit INTEGER NOT NULL DEFAULT 100,
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    fingerprint TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX api_keys_account ON api_keys (account_id);
  CREATE TABLE usage_counters (
    account_id INTEGER NOT NULL,
    counter TEXT NOT NULL,
    period_start TEXT NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (account_id, counter, period_start)
  );
  CREATE TABLE audit_log (
    id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    subject TEXT NOT NULL,
    before TEXT,
    after TEXT
  );
  `,
  `
  CREATE TABLE barcodes (
    gtin TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('to_confirm', 'approved', 'conflict', 'revoked')),
    adm_code INTEGER,
    kind TEXT,
    units INTEGER,
    admin_decision TEXT CHECK (admin_decision IN ('approved', 'revoked')),
    updated_at TEXT NOT NULL
  );
  CREATE INDEX barcodes_status ON barcodes (status);
  CREATE TABLE votes (
    gtin TEXT NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    adm_code INTEGER NOT NULL,
    kind TEXT NOT NULL,
    units INTEGER NOT NULL,
    contributor_ref TEXT,
    barcode_as_sent TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    PRIMARY KEY (gtin, account_id)
  );
  CREATE INDEX votes_account ON votes (account_id, submitted_at DESC, gtin);
  CREATE TABLE blocked_contributors (
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    contributor_ref TEXT NOT NULL,
    blocked_at TEXT NOT NULL,
    PRIMARY KEY (account_id, contributor_ref)
  );
  `,
  `
  CREATE TABLE sign_in_tokens (
    token_hash TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    csrf_token TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX sessions_account ON sessions (account_id);
  CREATE TABLE request_limits (
    key TEXT NOT NULL,
    period_start TEXT NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (key, period_start)
  );
  `,
  signUpSchema({ identity: 'INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY', false: 'BOOLEAN NOT NULL DEFAULT false' }),
];
