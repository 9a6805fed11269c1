/** Waits until `url` answers 2xx, every 100 ms, at most `limitMs`: a service under test is up and serving. */
export async function waitForUrl(url: string, limitMs = 30_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    const ok = await fetch(url).then(
      async (response) => (await response.arrayBuffer(), response.ok),
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 2xx within ${limitMs / 1000} s`);
}
