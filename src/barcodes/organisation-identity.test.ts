import { describe, expect, it } from 'vitest';
import { identityKeys, mailboxOf, organisationKey } from './organisation-identity.ts';

describe('mailboxOf', () => {
  it('drops plus tags and case, and dots where the provider ignores them', () => {
    const addresses = ['Anna+1@Tabacchi.it', 'anna+voto2@tabacchi.it', 't.rossi+x@googlemail.com', 't.rossi@tabacchi.it'];
    expect(addresses.map(mailboxOf)).toEqual(['anna@tabacchi.it', 'anna@tabacchi.it', 'trossi@gmail.com', 't.rossi@tabacchi.it']);
  });
});

describe('identityKeys', () => {
  it('names the mailbox and the folded organisation', () => {
    expect(identityKeys({ email: 'a+1@x.it', organisation: 'Tabaccheria Rossi S.r.l.' })).toEqual([
      'mailbox:a@x.it',
      'organisation:tabaccheriarossisrl',
    ]);
    expect(organisationKey('TABACCHERIA  ROSSÌ srl')).toBe(organisationKey('Tabaccheria Rossi S.R.L.'));
    expect(identityKeys({ email: 'ops@x.it', organisation: null })).toEqual(['mailbox:ops@x.it']);
  });
});
