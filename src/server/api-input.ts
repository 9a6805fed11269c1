import type { Parse } from './middleware/api-key.ts';
import { httpErrors } from './http-errors.ts';
import { parseWholeNumber } from '../util/whole-number.ts';

export const MAX_BATCH = 500;
export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 500;

/** The body of POST /v1/barcodes: JSON, an object with `items`, 1 to 500 of them. */
export const parseBatch: Parse<unknown[]> = async (request) => {
  const refuse = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
    ok: false as const,
    response: (headers: Record<string, string>) => httpErrors.badRequest(code, message, headers, extra),
  });
  // Read outside the try: a client that goes away mid-body is the adapter's to report, not a JSON error.
  const text = (await request.body()).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse('invalid_json', 'Il corpo non è JSON valido.');
  }
  const items = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).items : undefined;
  if (!Array.isArray(items)) return refuse('invalid_body', 'Il corpo deve essere un oggetto con un array "items".');
  if (items.length === 0) return refuse('empty_batch', 'Il lotto non contiene elementi.');
  if (items.length > MAX_BATCH) return refuse('batch_too_large', `Il lotto supera ${MAX_BATCH} elementi.`, { max: MAX_BATCH });
  return { ok: true, input: items };
};

/** The query of GET /v1/my-submissions: `limit` 1 to 1000 (default 500), `offset` 0 or more (default 0). */
export const parsePage: Parse<{ limit: number; offset: number }> = async (request) => {
  const limit = pageParameter(request.query.get('limit'), DEFAULT_PAGE, 1, MAX_PAGE);
  const offset = pageParameter(request.query.get('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
  const refuse = (parameter: string, message: string) => ({
    ok: false as const,
    response: (headers: Record<string, string>) => httpErrors.badRequest('invalid_parameter', message, headers, { parameter }),
  });
  if (limit === null) return refuse('limit', `limit deve essere un intero da 1 a ${MAX_PAGE}.`);
  if (offset === null) return refuse('offset', 'offset deve essere un intero non negativo.');
  return { ok: true, input: { limit, offset } };
};

/** A whole number within bounds (util/whole-number.ts, as on every surface), the default when absent, or null when invalid. */
function pageParameter(value: string | null, fallback: number, min: number, max: number): number | null {
  return value === null ? fallback : parseWholeNumber(value, min, max);
}
