import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { signInLinkIn } from '../helpers/outbox.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { signInWithLink } from '../helpers/web-sign-in.ts';
import { runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let service: RunningServe | null = null;
let smtp: SMTPServer | null = null;
afterEach(async () => {
  await service?.stop();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  service = null;
  smtp = null;
});

describe('sign-in e-mail over SMTP', () => {
  it('reaches a real SMTP server with a link that signs in', async () => {
    const received: { from: string; to: string[]; raw: Buffer }[] = [];
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
          });
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp!.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as { port: number }).port;

    const dataDir = await tempDir();
    await runCli(['accounts', 'create', 'shop@example.it', '--type', 'User', '--data-dir', dataDir]);
    service = await serveInProcess(dataDir, {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      SMTP_FROM: 'Servizio tariffa <tariffa@example.it>',
    });

    const form = await fetch(`${service.url}/accedi`);
    const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const sent = await fetch(`${service.url}/accedi`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: 'shop@example.it' }),
    });
    expect(sent.status).toBe(200);

    await waitFor(() => received.length > 0, 'the message at the SMTP server');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'tariffa@example.it', to: ['shop@example.it'] });
    const link = await signInLinkIn(received[0]!.raw);
    expect(link.startsWith(`${service.url}/accesso?t=`)).toBe(true);
    const token = new URL(link).searchParams.get('t')!;
    const signedIn = await signInWithLink(service.url, token);
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const account = await fetch(`${service.url}/account`, { headers: { cookie: session } });
    expect(await account.text()).toContain('shop@example.it');
    expect(JSON.stringify(service.log)).not.toContain(token);
    // With SMTP configured nothing goes to the embedded outbox.
    expect(existsSync(join(dataDir, 'outbox'))).toBe(false);
  });
});
