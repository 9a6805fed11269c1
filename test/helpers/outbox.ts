import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { waitFor } from './wait-for.ts';

const messagesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.eml')).sort() : []);

/**
 * The sign-in link of the newest message in `<data-dir>/outbox` (decoded with a real MIME parser),
 * waiting for it to arrive: the site mails after it has answered.
 */
export async function latestSignInLink(dataDir: string, atLeast = 1): Promise<string> {
  const dir = join(dataDir, 'outbox');
  await waitFor(() => messagesIn(dir).length >= atLeast, `message ${atLeast} in ${dir}`);
  return signInLinkIn(readFileSync(join(dir, messagesIn(dir).at(-1)!)));
}

export async function signInLinkIn(raw: Buffer | string): Promise<string> {
  const mail = await simpleParser(raw);
  const link = /https?:\/\/\S+\/accesso\?t=[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
  if (!link) throw new Error('no sign-in link in the message');
  return link;
}
