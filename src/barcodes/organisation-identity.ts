/** Mail providers where dots in the local part do not matter (one mailbox, many spellings). */
const DOTLESS_DOMAINS = new Map([
  ['gmail.com', 'gmail.com'],
  ['googlemail.com', 'gmail.com'],
]);

/**
 * The mailbox an address delivers to: `a+1@x.it` and `A+2@x.it` are one mailbox (`a@x.it`), as are
 * `t.r@gmail.com` and `tr@googlemail.com`. Sign-up needs only a working mailbox, so one mailbox is
 * one organisation at most.
 */
export function mailboxOf(email: string): string {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  const local = email.slice(0, at).toLowerCase().split('+')[0]!;
  const dotless = DOTLESS_DOMAINS.get(domain);
  return dotless ? `${local.replaceAll('.', '')}@${dotless}` : `${local}@${domain}`;
}

/** An organisation's name folded for comparison: accents, case, spaces and punctuation do not tell two apart. */
export function organisationKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The keys that tie an account to an organisation (the usage rules: one account per organisation):
 * its mailbox, and the organisation it named at sign-up. Two accounts sharing a key are one
 * organisation for the quorum (docs/moderation.md).
 */
export function identityKeys(account: { email: string; organisation: string | null }): string[] {
  const organisation = account.organisation ? organisationKey(account.organisation) : '';
  return [`mailbox:${mailboxOf(account.email)}`, ...(organisation ? [`organisation:${organisation}`] : [])];
}
