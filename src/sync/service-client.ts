import { errors } from '../errors.ts';
import { httpGet, type HttpAnswer } from './http-get.ts';
import { mustWait, retryNotBefore } from './retry-rules.ts';

export interface ServiceClientOptions {
  /** The API's base URL, with /v1. */
  api: string;
  key: string;
  now: () => Date;
  /** The whole run's deadline: every call shares it. */
  signal: AbortSignal;
  /** A refusal that names a moment to wait for (quota, a server error): recorded before the run fails. */
  recordWait: (notBefore: string, reason: string) => Promise<void>;
}

/** The answer to one call: 200, with its body still to read. */
export interface ServiceAnswer {
  url: string;
  response: HttpAnswer;
}

/**
 * The service as a sync sees it: authenticated GETs that count the reads they spend, and turn every
 * other answer into the error the operator reads (with the moment to wait for, recorded first).
 *
 * The calls go through Node.js's own HTTP client (http-get.ts): a sync with nothing new is a cron
 * job at every till, and loading an HTTP client library (undici, even the copy inside Node.js) was
 * most of its time. Redirects are not followed: the service answers /v1 itself, and a redirect is
 * reported, as any other answer.
 */
export class ServiceClient {
  /** Reads of the daily quota spent so far. */
  reads = 0;
  private readonly base: string;

  private readonly options: ServiceClientOptions;

  constructor(options: ServiceClientOptions) {
    this.options = options;
    this.base = options.api.replace(/\/+$/, '');
  }

  async get(path: string): Promise<ServiceAnswer> {
    const url = `${this.base}${path}`;
    let response: HttpAnswer;
    try {
      response = await httpGet(url, {
        headers: { authorization: `Bearer ${this.options.key}`, 'user-agent': 'tariff-sync' },
        signal: this.options.signal,
      });
    } catch (error) {
      throw errors.syncFailed(url, `cannot reach the service: ${reason(error)}`);
    }
    this.reads += 1;
    if (response.status === 200) return { url, response };
    throw await this.refusal(url, response);
  }

  private async refusal(url: string, response: HttpAnswer): Promise<Error> {
    const body = await response.text().catch(() => '');
    const code = errorCode(body) ?? `http_${response.status}`;
    if (!mustWait(response.status)) return errors.syncRefused(url, response.status, code, refusalDetail(response.status, code, this.base));
    const retryAfter = response.header('retry-after');
    const notBefore = retryNotBefore(response.status, retryAfter, this.options.now());
    const until = notBefore.toISOString().replace('.000Z', 'Z');
    await this.options.recordWait(until, `${response.status} ${code}`);
    return errors.syncRefused(url, response.status, code, `try again after ${until}; until then this command makes no call`);
  }
}

function errorCode(body: string): string | null {
  try {
    const code = (JSON.parse(body) as { error?: unknown }).error;
    return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}

/**
 * What failed: the error's message (`connect ECONNREFUSED 127.0.0.1:9`), or for a call the deadline
 * cut short ("This operation was aborted"), the deadline's own reason, its cause.
 */
export function reason(error: unknown): string {
  const { message, cause, code } = error as Error & { code?: string; cause?: Error & { code?: string } };
  if (cause?.message) return cause.code && !cause.message.includes(cause.code) ? `${cause.code} ${cause.message}` : cause.message;
  return code && !message.includes(code) ? `${code} ${message}` : message;
}

/** What a refusal means for the operator: a 404 that is not the service's own answer is a wrong --api. */
function refusalDetail(status: number, code: string, base: string): string {
  if (status === 404 && code === 'no_release') return 'nothing has been published yet';
  if (status === 404 && !/\/v1$/.test(base))
    return `not synced: --api must be the service's /v1 base URL (e.g. ${base.replace(/\/+$/, '')}/v1), which answers /version`;
  if (status === 404) return "not synced: no such path; is --api the service's /v1 base URL?";
  return 'not synced';
}
