import { randomBytes } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/durable-write.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends the website's e-mail. */
export interface Mailer {
  /** A description for logs, without credentials. */
  readonly description: string;
  send(message: MailMessage): Promise<void>;
}

export interface MailerOptions {
  /** smtp://user:pass@host:587 or smtps://… (setting smtpUrl, env SMTP_URL); none: the outbox folder. */
  smtpUrl?: string;
  /** The sender (setting smtpFrom, env SMTP_FROM). */
  from: string;
  dataDir: string;
  log: (event: Record<string, unknown>) => void;
}

/**
 * SMTP through nodemailer when an SMTP URL is set, else the embedded default: each message is
 * written as an .eml file under <data-dir>/outbox, and where it went is logged (never its
 * content: it carries a sign-in link).
 */
export function createMailer(options: MailerOptions): Mailer {
  const { from, smtpUrl: url } = options;
  if (url) {
    const transport = lazyTransport((nodemailer) => nodemailer.createTransport(url));
    const { host, port } = new URL(url);
    return {
      description: `SMTP ${host}:${port}`,
      async send(message) {
        await (await transport()).sendMail({ from, ...message });
        options.log({ event: 'mail.sent', via: `${host}:${port}` });
      },
    };
  }
  const outbox = join(options.dataDir, 'outbox');
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  return {
    description: `outbox ${outbox}`,
    async send(message) {
      const info = await (await transport()).sendMail({ from, ...message });
      // The messages hold live sign-in links: only the service's own user may read them.
      await mkdir(outbox, { recursive: true, mode: 0o700 });
      await chmod(outbox, 0o700);
      const path = join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFileAtomic(path, info.message as Buffer, 0o600);
      options.log({ event: 'mail.outbox', path });
    },
  };
}

type Nodemailer = (typeof import('nodemailer'))['default'];

/**
 * A transport made at the first message: nodemailer (some 30 MB of a service's memory with the
 * packages it brings) is loaded by a service that sends mail, not by every command and service.
 */
function lazyTransport<T>(make: (nodemailer: Nodemailer) => T): () => Promise<T> {
  let made: Promise<T> | null = null;
  return () => (made ??= import('nodemailer').then((module) => make(module.default)));
}
