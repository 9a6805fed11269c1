/**
 * Schema version 4 (sign-ups and administrators), written once for both dialects: they differ
 * only in how an identity column and a false boolean are declared.
 */
export function signUpSchema(dialect: { identity: string; false: string }): string {
  return `
  ALTER TABLE accounts ADD COLUMN organisation TEXT;
  ALTER TABLE accounts ADD COLUMN rules_version TEXT;
  ALTER TABLE accounts ADD COLUMN rules_accepted_at TEXT;
  ALTER TABLE accounts ADD COLUMN admin ${dialect.false};
  CREATE TABLE sign_ups (
    id ${dialect.identity},
    email TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('User', 'Supplier', 'Integration')),
    organisation TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'unconfirmed' CHECK (status IN ('unconfirmed', 'awaiting_approval', 'approved', 'refused', 'created', 'existed')),
    confirmed_at TEXT,
    decided_at TEXT,
    decided_by TEXT
  );
  CREATE INDEX sign_ups_status ON sign_ups (status, created_at);
  `;
}
