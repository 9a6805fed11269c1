/** The API's paths (as app.ts names them) and the checker, loaded by the first fetch: most test files fetch nothing. */
const checker = async () => {
  const [{ isApiPath }, { openApiProblems }] = await Promise.all([
    import('../../src/server/app.ts'),
    import('../helpers/openapi-check.ts'),
  ]);
  return { isApiPath, openApiProblems };
};

/**
 * Every response a test receives from the service through fetch is checked against
 * docs/openapi.json: the description cannot drift from what the service answers. A response it
 * does not describe fails the test at the fetch that received it.
 */
const original = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await original(input, init);
  const { isApiPath, openApiProblems } = await checker();
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  if (url.hostname !== '127.0.0.1' || !isApiPath(url.pathname) || method === 'HEAD') return response;
  const headers = Object.fromEntries(response.headers);
  const isJson = (headers['content-type'] ?? '').startsWith('application/json');
  const text = isJson || response.status === 304 ? await response.clone().text() : undefined;
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  const problems = openApiProblems({
    method,
    path: url.pathname,
    status: response.status,
    headers,
    body,
    empty: text === undefined ? undefined : text.length === 0,
  });
  if (problems.length > 0) {
    throw new Error(`${method} ${url.pathname} → ${response.status} is not what docs/openapi.json describes:\n  ${problems.join('\n  ')}`);
  }
  return response;
};
