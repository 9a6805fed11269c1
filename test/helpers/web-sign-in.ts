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
