/** The cookies of a request, by name. A cookie whose value does not decode (`x=%`) is left out: it is not ours. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    try {
      cookies.set(part.slice(0, at).trim(), decodeURIComponent(part.slice(at + 1).trim()));
    } catch {
      // A malformed escape in someone else's cookie must not break the page.
    }
  }
  return cookies;
}

export interface CookieOptions {
  secure: boolean;
  maxAgeSeconds?: number;
}

/** A Set-Cookie value: always HttpOnly, SameSite=Lax, Path=/; Secure when served over https. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join('; ');
}
