/**
 * Waits until `check` holds (polling), or fails after `limitMs`: for work a service does after it
 * answered. The limit is a guard, not a wait (it returns as soon as the check holds): two minutes,
 * which a machine busy twelve times over per core still meets.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, limitMs = 120_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${limitMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
