import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';

/** The sign-in link of the newest message in `<data-dir>/outbox` (decoded with a real MIME parser). */
export async function latestSignInLink(dataDir: string): Promise<string> {
  const dir = join(dataDir, 'outbox');
  const newest = readdirSync(dir).filter((name) => name.endsWith('.eml')).sort().at(-1);
  if (!newest) throw new Error('no message in the outbox');
  return signInLinkIn(readFileSync(join(dir, newest)));
}

export async function signInLinkIn(raw: Buffer | string): Promise<string> {
  const mail = await simpleParser(raw);
  const link = /https?:\/\/\S+\/accesso\?t=[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
  if (!link) throw new Error('no sign-in link in the message');
  return link;
}
