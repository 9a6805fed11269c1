import * as z from 'zod';

const email = z.string().trim().toLowerCase().pipe(z.email());

/** An e-mail address as the registry stores it (trimmed, lower case), or null when it is not one. */
export function normaliseEmail(value: string): string | null {
  const parsed = email.safeParse(value);
  return parsed.success ? parsed.data : null;
}
