import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { errors, isTariffError } from '../errors.ts';
import { retryDelay, type RetryPolicy } from './retry-policy.ts';

export interface Validators {
  etag?: string;
  lastModified?: string;
}

type Answer = { kind: 'not-modified' } | { kind: 'downloaded'; bytes: Buffer; validators: Validators };

type Response = Answer & {
  /** The address that answered, after redirects. */
  finalUrl: string;
};

export type FetchOutcome = Response & { attempts: number };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface FetchOptions {
  dispatcher: Agent;
  maxBytes: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  policy: RetryPolicy;
  /** The whole download, every try and wait included, ends by then: a trickling server cannot hold a run. */
  deadlineMs: number;
  /** Redirects followed, at most, for one try. */
  maxRedirects: number;
  /**
   * Hosts (host[:port], lower case) a redirect may lead to besides the address's own: the pages'
   * hosts and those the operator names (TARIFF_SOURCE_HOSTS). Any other is refused, a loopback,
   * private, link-local or unique-local address above all.
   */
  allowedHosts: ReadonlySet<string>;
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
  readonly retryAfter: string | undefined;

  constructor(message: string, retryAfter?: string) {
    super(message);
    this.retryAfter = retryAfter;
  }
}

/**
 * Downloads one document with a conditional request (ETag / Last-Modified), so an unchanged one
 * costs one round trip and no body. Redirects are followed (a bounded number; the outcome names
 * the final address). Network errors, 5xx and 429 are retried with backoff and Retry-After, a
 * bounded number of times, all within one overall deadline; a body larger than maxBytes, or
 * shorter than its Content-Length, is never returned.
 */
export async function fetchSource(url: string, previous: Validators, options: FetchOptions): Promise<FetchOutcome> {
  const deadline = AbortSignal.timeout(options.deadlineMs);
  const startedAt = Date.now();
  const overdue = (attempts: number) =>
    errors.fetchFailed(
      url,
      `no complete answer within the deadline of ${Math.round(options.deadlineMs / 1000)} s (TARIFF_FETCH_DEADLINE_SECONDS)`,
      attempts,
    );
  for (let attempt = 1; ; attempt++) {
    try {
      return { ...(await tryOnce(url, previous, options, deadline)), attempts: attempt };
    } catch (error) {
      if (deadline.aborted) throw overdue(attempt);
      if (!(error instanceof RetryableError))
        throw isTariffError(error, 'fetch_failed') ? errors.fetchFailed(url, detailOf(error, url), attempt) : error;
      const delay = retryDelay(options.policy, attempt, error.retryAfter, options.now());
      if (delay === null)
        throw errors.fetchFailed(url, `${error.message} (gave up after ${attempt} ${attempt === 1 ? 'try' : 'tries'})`, attempt);
      if (Date.now() - startedAt + delay >= options.deadlineMs) throw overdue(attempt);
      options.onRetry?.(attempt, delay, error.message);
      await options.sleep(delay);
    }
  }
}

async function tryOnce(url: string, previous: Validators, options: FetchOptions, signal: AbortSignal): Promise<Response> {
  let address = url;
  for (let hops = 0; ; hops++) {
    const response = await requestOnce(address, previous, options, signal);
    if (response.kind !== 'redirect') return { ...response, finalUrl: address };
    if (hops >= options.maxRedirects)
      throw errors.fetchFailed(url, `more than ${options.maxRedirects} redirects (the last to ${response.location})`);
    const next = new URL(response.location, address);
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw errors.fetchFailed(url, `a redirect to ${next.href}, which is not http(s)`);
    const refused = refusedRedirect(next, url, options.allowedHosts);
    if (refused) throw errors.fetchFailed(url, `not following a redirect to ${next.href}: ${refused}`);
    address = next.href;
  }
}

async function requestOnce(
  url: string,
  previous: Validators,
  options: FetchOptions,
  signal: AbortSignal,
): Promise<Answer | { kind: 'redirect'; location: string }> {
  const headers: Record<string, string> = {
    accept: 'application/pdf, text/html;q=0.9, application/xml;q=0.9, */*;q=0.1',
    'user-agent': 'tobacco-tariff-dataset (tariff fetch)',
  };
  if (previous.etag) headers['if-none-match'] = previous.etag;
  if (previous.lastModified) headers['if-modified-since'] = previous.lastModified;

  let response;
  try {
    response = await request(url, {
      dispatcher: options.dispatcher,
      headers,
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      signal,
    });
  } catch (error) {
    throw new RetryableError(describe(error));
  }
  const { statusCode } = response;
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const location = header('location');
  if (REDIRECTS.has(statusCode) && location) {
    await response.body.dump().catch(() => {});
    return { kind: 'redirect', location };
  }
  if (statusCode === 304) {
    await response.body.dump();
    return { kind: 'not-modified' };
  }
  if (statusCode !== 200) {
    await response.body.dump().catch(() => {});
    if (statusCode >= 500 || statusCode === 429 || statusCode === 408)
      throw new RetryableError(`HTTP ${statusCode}`, header('retry-after'));
    throw errors.fetchFailed(url, `the server answered HTTP ${statusCode}`);
  }

  const declared = header('content-length');
  const total = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : null;
  if (total !== null && total > options.maxBytes) {
    discard(response.body);
    throw errors.fetchFailed(url, `the list is ${total} bytes, more than the ${options.maxBytes} bytes allowed (TARIFF_FETCH_MAX_BYTES)`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of response.body) {
      received += chunk.length;
      if (received > options.maxBytes) {
        discard(response.body);
        throw errors.fetchFailed(url, `the list is more than the ${options.maxBytes} bytes allowed (TARIFF_FETCH_MAX_BYTES)`);
      }
      chunks.push(chunk as Buffer);
      options.onProgress?.(received, total);
    }
  } catch (error) {
    if (isTariffError(error, 'fetch_failed')) throw error;
    throw new RetryableError(`the download broke off after ${received} bytes: ${describe(error)}`);
  }
  if (total !== null && received !== total) throw new RetryableError(`the download is truncated: ${received} of ${total} bytes`);
  return { kind: 'downloaded', bytes: Buffer.concat(chunks), validators: { etag: header('etag'), lastModified: header('last-modified') } };
}

/**
 * Why a redirect target is not followed, or null: its host must be the address's own or an allowed
 * one. Said plainly when it is an address no public document lives at (a redirect to the cloud's
 * metadata service, to this machine, to the local network).
 */
function refusedRedirect(target: URL, from: string, allowed: ReadonlySet<string>): string | null {
  const host = target.host.toLowerCase();
  if (host === new URL(from).host.toLowerCase() || allowed.has(host)) return null;
  const kind = nonPublicAddress(target.hostname);
  return `${host} is ${kind ? `${kind}, and ` : ''}not one of the allowed hosts (the pages' own and TARIFF_SOURCE_HOSTS)`;
}

/** "a loopback address", "a private address" …, for an IP literal no public server has; null otherwise. */
export function nonPublicAddress(hostname: string): string | null {
  const address = hostname.replace(/^\[|\]$/g, '');
  const kind = isIP(address);
  if (kind === 4) {
    const [a, b] = address.split('.').map(Number) as [number, number];
    if (a === 127) return 'a loopback address';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address';
    if (a === 169 && b === 254) return 'a link-local address';
    if (a === 0) return 'an unspecified address';
    return null;
  }
  if (kind === 6) {
    const lower = address.toLowerCase();
    if (lower === '::1') return 'a loopback address';
    if (lower === '::') return 'an unspecified address';
    if (/^fe[89ab]/.test(lower)) return 'a link-local address';
    if (/^f[cd]/.test(lower)) return 'a unique-local address';
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped ? nonPublicAddress(mapped[1]!) : null;
  }
  return hostname.toLowerCase() === 'localhost' ? 'a loopback address' : null;
}

/**
 * Drops a body this run refuses: destroying it makes undici emit its abort as an 'error', which
 * is our own doing and must not reach the process as an unhandled one.
 */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

/** A fetch_failed message without the URL it starts with (it is said again, with the tries made). */
const detailOf = (error: Error, url: string) =>
  error.message.startsWith(`${url}: `) ? error.message.slice(url.length + 2) : error.message;

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return [e.code ?? e.cause?.code, e.message].filter(Boolean).join(' ');
}
