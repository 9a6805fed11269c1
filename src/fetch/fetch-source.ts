import { Agent, request } from 'undici';
import { errors } from '../errors.ts';
import { retryDelay, type RetryPolicy } from './retry-policy.ts';

export interface Validators {
  etag?: string;
  lastModified?: string;
}

type Response = { kind: 'not-modified' } | { kind: 'downloaded'; bytes: Buffer; validators: Validators };

export type FetchOutcome = Response & { attempts: number };

export interface FetchOptions {
  dispatcher: Agent;
  maxBytes: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  policy: RetryPolicy;
  sleep: (ms: number) => Promise<void>;
  now: () => Date;
  onProgress?: (received: number, total: number | null) => void;
  onRetry?: (attempt: number, delayMs: number, reason: string) => void;
}

/** The HTTP client for the authority's lists: timeouts on connect, headers and body. */
export function fetchAgent(connectTimeoutMs: number): Agent {
  return new Agent({ connectTimeout: connectTimeoutMs, keepAliveTimeout: 4_000 });
}

class RetryableError extends Error {
  constructor(message: string, readonly retryAfter?: string) {
    super(message);
  }
}

/**
 * Downloads one list with a conditional request (ETag / Last-Modified), so an unchanged list
 * costs one round trip and no body. Network errors, 5xx and 429 are retried with backoff and
 * Retry-After, a bounded number of times; a body larger than maxBytes, or shorter than its
 * Content-Length, is never returned.
 */
export async function fetchSource(url: string, previous: Validators, options: FetchOptions): Promise<FetchOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ...(await tryOnce(url, previous, options)), attempts: attempt };
    } catch (error) {
      if (!(error instanceof RetryableError)) throw error;
      const delay = retryDelay(options.policy, attempt, error.retryAfter, options.now());
      if (delay === null) throw errors.fetchFailed(url, `${error.message} (gave up after ${attempt} ${attempt === 1 ? 'try' : 'tries'})`);
      options.onRetry?.(attempt, delay, error.message);
      await options.sleep(delay);
    }
  }
}

async function tryOnce(url: string, previous: Validators, options: FetchOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/pdf, text/html;q=0.9, application/xml;q=0.9, */*;q=0.1', 'user-agent': 'tobacco-tariff-dataset (tariff fetch)' };
  if (previous.etag) headers['if-none-match'] = previous.etag;
  if (previous.lastModified) headers['if-modified-since'] = previous.lastModified;

  let response;
  try {
    response = await request(url, { dispatcher: options.dispatcher, headers, headersTimeout: options.headersTimeoutMs, bodyTimeout: options.bodyTimeoutMs });
  } catch (error) {
    throw new RetryableError(describe(error));
  }
  const { statusCode } = response;
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  if (statusCode === 304) {
    await response.body.dump();
    return { kind: 'not-modified' };
  }
  if (statusCode !== 200) {
    await response.body.dump().catch(() => {});
    if (statusCode >= 500 || statusCode === 429 || statusCode === 408) throw new RetryableError(`HTTP ${statusCode}`, header('retry-after'));
    throw errors.fetchFailed(url, `the server answered HTTP ${statusCode}`);
  }

  const declared = header('content-length');
  const total = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : null;
  if (total !== null && total > options.maxBytes) {
    response.body.destroy();
    throw errors.fetchFailed(url, `the list is ${total} bytes, more than the ${options.maxBytes} allowed`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of response.body) {
      received += chunk.length;
      if (received > options.maxBytes) {
        response.body.destroy();
        throw errors.fetchFailed(url, `the list is more than the ${options.maxBytes} bytes allowed`);
      }
      chunks.push(chunk as Buffer);
      options.onProgress?.(received, total);
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'fetch_failed') throw error;
    throw new RetryableError(`the download broke off after ${received} bytes: ${describe(error)}`);
  }
  if (total !== null && received !== total) throw new RetryableError(`the download is truncated: ${received} of ${total} bytes`);
  return { kind: 'downloaded', bytes: Buffer.concat(chunks), validators: { etag: header('etag'), lastModified: header('last-modified') } };
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return [e.code ?? e.cause?.code, e.message].filter(Boolean).join(' ');
}
