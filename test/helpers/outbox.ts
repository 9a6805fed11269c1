import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { waitFor } from './wait-for.ts';

const messagesIn = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.eml'))
        .sort()
    : [];

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

/** How many messages `<data-dir>/outbox` holds. */
export const messageCount = (dataDir: string): number => messagesIn(join(dataDir, 'outbox')).length;

/** Message number `atLeast` (1-based, in arrival order) of the outbox, once it arrived, decoded. */
export async function messageNumber(dataDir: string, atLeast: number): Promise<{ to: string; subject: string; text: string }> {
  const dir = join(dataDir, 'outbox');
  await waitFor(() => messagesIn(dir).length >= atLeast, `message ${atLeast} in ${dir}`);
  const mail = await simpleParser(readFileSync(join(dir, messagesIn(dir)[atLeast - 1]!)));
  const to = Array.isArray(mail.to) ? mail.to[0]!.text : (mail.to?.text ?? '');
  return { to, subject: mail.subject ?? '', text: mail.text ?? '' };
}
