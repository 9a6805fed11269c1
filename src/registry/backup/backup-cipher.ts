import { Decrypter, Encrypter, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { errors } from '../../errors.ts';

/**
 * Registry backups are encrypted before they leave the machine, in the age format (age-encryption.org/v1,
 * by age's author, read by Debian's `age` too): the machine that takes them holds only public
 * recipients (`age1…`); the identity that opens them is kept elsewhere and given to a restore as a
 * file. X25519 recipients: what every `age` reads.
 */

/** The first line of every age file: how a backup tells it is encrypted, whatever its name. */
const AGE_HEADER = Buffer.from('age-encryption.org/v1\n');
/** The first line of an age file in ASCII armour (`age -a`). */
const AGE_ARMOR = '-----BEGIN AGE ENCRYPTED FILE-----';

/** Whether bytes are an age file (its first line), whatever the file's name. */
export function isEncrypted(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, AGE_HEADER.length)).equals(AGE_HEADER);
}

/** Bytes encrypted for every recipient given (any one's identity opens them). */
export async function encryptBackup(bytes: Uint8Array, recipients: string[]): Promise<Uint8Array> {
  const encrypter = new Encrypter();
  for (const recipient of recipients) encrypter.addRecipient(recipient);
  return encrypter.encrypt(bytes);
}

/** Opens an encrypted backup with the identities of a file (`AGE-SECRET-KEY-1…` lines; comments and blank lines skipped). */
export async function decryptBackup(bytes: Uint8Array, identityFile: string, identityText: string, where: string): Promise<Uint8Array> {
  const identities = identityText
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('AGE-SECRET-KEY-'));
  // `age -p` makes an age file of the identity, opened with a passphrase: said as such, with what to do.
  if (identities.length === 0 && (isEncrypted(Buffer.from(identityText)) || identityText.trimStart().startsWith(AGE_ARMOR)))
    throw errors.backupIdentity(
      identityFile,
      'it is protected by a passphrase (age -p), which tariff does not ask for: open it into a private file first (umask 077; age -d -o <file> ' +
        `${identityFile}), give that file, and remove it after`,
    );
  if (identities.length === 0) throw errors.backupIdentity(identityFile, 'it holds no age identity (AGE-SECRET-KEY-1…)');
  const decrypter = new Decrypter();
  for (const identity of identities) decrypter.addIdentity(identity);
  try {
    return await decrypter.decrypt(bytes);
  } catch (error) {
    const message = (error as Error).message;
    if (/no identity matched/i.test(message)) throw errors.backupIdentity(identityFile, `none of its identities opens ${where}`);
    throw errors.backupDamaged(where, `it does not decrypt (${message})`);
  }
}

/** A new identity and its recipient: the identity for the file an operator keeps apart, the recipient for the settings. */
export async function newBackupKey(): Promise<{ identity: string; recipient: string }> {
  const identity = await generateX25519Identity();
  return { identity, recipient: await identityToRecipient(identity) };
}
