/**
 * The registry's schema, one entry per version, applied in order at start. Never edit an entry
 * that has shipped: add a new one.
 */
export const SQLITE_MIGRATIONS: string[] = [
  `
  CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL CHECK (type IN ('User', 'Supplier', 'Integration')),
    blocked INTEGER NOT NULL DEFAULT 0,
    submit_limit INTEGER NOT NULL DEFAULT 100,
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY,
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
  ) WITHOUT ROWID;
  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    subject TEXT NOT NULL,
    before TEXT,
    after TEXT
  );
  `,
];
