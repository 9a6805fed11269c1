/** Waits until `check` holds (polling), or fails after `limitMs`: for work a service does after it answered. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${limitMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
