import { armor, Encrypter } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import { decryptBackup, encryptBackup, isEncrypted, newBackupKey } from './backup-cipher.ts';

describe('a registry backup encrypted with age', () => {
  it('opens with the identity of its recipient, and with no other; says which file lacks one', async () => {
    const key = await newBackupKey();
    expect(key.recipient).toMatch(/^age1[02-9ac-hj-np-z]{58}$/);
    const plain = new TextEncoder().encode('uno@example.it and every other account');
    const sealed = await encryptBackup(plain, [key.recipient]);
    expect(isEncrypted(sealed)).toBe(true);
    expect(isEncrypted(plain)).toBe(false);
    expect(Buffer.from(sealed).includes(Buffer.from('uno@example.it'))).toBe(false);
    const file = `# a comment\n\n${key.identity}\n`;
    expect(Buffer.from(await decryptBackup(sealed, 'key.age', file, 'backup')).equals(Buffer.from(plain))).toBe(true);
    const other = await newBackupKey();
    await expect(decryptBackup(sealed, 'other.age', other.identity, 'backup')).rejects.toMatchObject({
      code: 'backup_identity',
      message: expect.stringContaining('none of its identities opens backup'),
    });
    await expect(decryptBackup(sealed, 'empty.age', '# nothing\n', 'backup')).rejects.toMatchObject({ code: 'backup_identity' });
  });

  it('says an identity protected by a passphrase (age -p) is one, and what to do, binary or armoured', async () => {
    const key = await newBackupKey();
    const sealed = await encryptBackup(new TextEncoder().encode('backup'), [key.recipient]);
    const protector = new Encrypter();
    protector.setPassphrase('correct horse');
    const identityFile = await protector.encrypt(new TextEncoder().encode(`${key.identity}\n`));
    for (const text of [Buffer.from(identityFile).toString('utf8'), armor.encode(identityFile)])
      await expect(decryptBackup(sealed, 'key.age', text, 'backup')).rejects.toMatchObject({
        code: 'backup_identity',
        message: expect.stringContaining('it is protected by a passphrase (age -p)'),
      });
  });
});
