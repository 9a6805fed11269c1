import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_BACKUP_RECIPIENT, testBackupIdentity } from '../helpers/backup-key.ts';
import { privatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { requestSignInLink, sessionCookie, signInWithLink } from '../helpers/web-sign-in.ts';

// A restore brings back the registry of an earlier moment; what people ended since (a session
// signed out everywhere, a sign-in link used) must not come back with it (docs/operations.md, "Restoring").
const running: RunningServe[] = [];
const clusters: PrivatePostgres[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
  for (const cluster of clusters.splice(0)) cluster.close();
});

const EMAIL = 'uno@example.it';

async function machine(registry?: string) {
  const dataDir = await tempDir();
  const env: Record<string, string> = {
    TARIFF_BUCKET: join(await tempDir(), 'bucket'),
    TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
    TARIFF_BACKUP_IDENTITY: testBackupIdentity(await tempDir()),
    ...(registry ? { TARIFF_REGISTRY: registry } : {}),
  };
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { env });
  expect((await cli(['accounts', 'create', EMAIL, '--type', 'User'])).status).toBe(0);
  let service: RunningServe | null = null;
  return {
    cli,
    async start(): Promise<string> {
      service = await serveInProcess(dataDir, env);
      running.push(service);
      return service.url;
    },
    async stop(): Promise<void> {
      await service?.stop();
      running.splice(running.indexOf(service!), 1);
      service = null;
    },
    /** A sign-in link mailed to the account, not used. */
    unusedLink: (url: string) => requestSignInLink(url, dataDir, EMAIL),
    cookie: (url: string) => sessionCookie(url, dataDir, EMAIL),
  };
}

const accountStatus = async (url: string, cookie: string) =>
  (await fetch(`${url}/account`, { headers: { cookie }, redirect: 'manual' })).status;

/** "Accedi" pressed with a link whose page is gone: the form's CSRF token from the sign-in page, as a browser left on it would have. */
async function postLink(url: string, token: string): Promise<Response> {
  const form = await fetch(`${url}/accedi`);
  const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  return fetch(`${url}/accesso`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, _csrf: csrf }),
  });
}

async function signOutEverywhere(url: string, cookie: string): Promise<void> {
  const page = await (await fetch(`${url}/account`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const answer = await fetch(`${url}/esci-ovunque`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf }),
  });
  expect(answer.status).toBe(303);
}

/** The journey on one engine: a used link and sessions after a plain restore, then "sign out everywhere". */
async function journey(registry?: string): Promise<void> {
  const site = await machine(registry);
  let url = await site.start();
  const before = await site.cookie(url);
  const link = await site.unusedLink(url);
  expect((await site.cli(['registry', 'backup'])).status).toBe(0);
  // Since the backup: the link used (a session opened with it); the earlier session goes on.
  const signedIn = await signInWithLink(url, link);
  expect(signedIn.status).toBe(303);
  const fromLink = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  expect(await accountStatus(url, before)).toBe(200);
  expect(await accountStatus(url, fromLink)).toBe(200);
  await site.stop();

  // Sign-ins are not work a restore refuses for: it goes on, and ends every session and link.
  const restored = await site.cli(['registry', 'restore', 'latest']);
  expect(restored.status, restored.stderr).toBe(0);
  expect(restored.stdout).toContain('every website session ended');
  expect(restored.stdout).toContain('every unused sign-in link voided (1)');
  url = await site.start();
  expect(await accountStatus(url, before), 'a session the backup held').toBe(303);
  expect(await accountStatus(url, fromLink), 'a session opened since').toBe(303);
  expect((await fetch(`${url}/accesso?t=${link}`)).status, 'the link used since the backup').toBe(410);
  expect((await postLink(url, link)).status, 'the link used since the backup, sent').toBe(410);

  // "Sign out everywhere" is work: audited, so a plain restore of an earlier backup refuses.
  const again = await site.cookie(url);
  expect((await site.cli(['registry', 'backup'])).status).toBe(0);
  await signOutEverywhere(url, again);
  expect(await accountStatus(url, again)).toBe(303);
  await site.stop();
  const refused = await site.cli(['registry', 'restore', 'latest']);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('changed since the backup');
  const forced = await site.cli(['registry', 'restore', 'latest', '--force']);
  expect(forced.status, forced.stderr).toBe(0);
  url = await site.start();
  expect(await accountStatus(url, again), 'signed out everywhere before the forced restore').toBe(303);
}

describe('a restore revives nothing that was ended', () => {
  it('on SQLite: sessions and a used sign-in link stay ended; signing out everywhere is audited', async () => {
    await journey();
  });

  it('on PostgreSQL: the same', async (context) => {
    const cluster = await privatePostgres();
    if (!cluster) return context.skip('no PostgreSQL cluster of its own can be made here (needs root and PostgreSQL)');
    clusters.push(cluster);
    await journey(cluster.url);
    // A cluster of its own: initdb takes seconds idle, a minute or more with every core busy.
  }, 600_000);
});
