import { latestSignInLink, messageCount } from './outbox.ts';

/**
 * Presses "Accedi" on a sign-in link's page over HTTP, as a browser does: the page sets the CSRF
 * cookie and its form carries the token. Returns the POST's response (303 with the session cookie).
 */
export async function signInWithLink(siteUrl: string, token: string): Promise<Response> {
  const confirm = await fetch(`${siteUrl}/accesso?t=${encodeURIComponent(token)}`);
  const cookie = confirm.headers.get('set-cookie')?.split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await confirm.text())?.[1] ?? '';
  return fetch(`${siteUrl}/accesso`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, _csrf: csrf }),
  });
}

/**
 * Signs in over plain HTTP as a browser would: the address on /accedi (with its CSRF cookie), the
 * mailed link from the data dir's outbox, "Accedi". Returns the session cookie (`name=value`).
 */
export async function sessionCookie(siteUrl: string, dataDir: string, email: string): Promise<string> {
  const signedIn = await signInWithLink(siteUrl, await requestSignInLink(siteUrl, dataDir, email));
  return signedIn.headers.get('set-cookie')!.split(';')[0]!;
}

/** Asks for a sign-in link on /accedi as a browser would (its CSRF cookie and token): the mailed link's token, not used. */
export async function requestSignInLink(siteUrl: string, dataDir: string, email: string): Promise<string> {
  const form = await fetch(`${siteUrl}/accedi`);
  const csrfCookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const before = messageCount(dataDir);
  await fetch(`${siteUrl}/accedi`, {
    method: 'POST',
    headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email }),
  });
  return new URL(await latestSignInLink(dataDir, before + 1)).searchParams.get('t')!;
}
