import { request, type Dispatcher } from 'undici';
import { errors } from '../errors.ts';
import { mustWait, retryNotBefore } from './retry-rules.ts';

export interface ServiceClientOptions {
  /** The API's base URL, with /v1. */
  api: string;
  key: string;
  now: () => Date;
  /** The whole run's deadline: every call shares it. */
  signal: AbortSignal;
  dispatcher?: Dispatcher;
  /** A refusal that names a moment to wait for (quota, a server error): recorded before the run fails. */
  recordWait: (notBefore: string, reason: string) => Promise<void>;
}

/** The answer to one call: 200, with its body still to read. */
export interface ServiceAnswer {
  url: string;
  response: Dispatcher.ResponseData;
}

/**
 * The service as a sync sees it: authenticated GETs that count the reads they spend, and turn every
 * other answer into the error the operator reads (with the moment to wait for, recorded first).
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
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        headers: { authorization: `Bearer ${this.options.key}`, 'user-agent': 'tariff-sync' },
        dispatcher: this.options.dispatcher,
        signal: this.options.signal,
      });
    } catch (error) {
      throw errors.syncFailed(url, `cannot reach the service: ${(error as Error).message}`);
    }
    this.reads += 1;
    if (response.statusCode === 200) return { url, response };
    throw await this.refusal(url, response);
  }

  private async refusal(url: string, response: Dispatcher.ResponseData): Promise<Error> {
    const body = await response.body.text().catch(() => '');
    const code = errorCode(body) ?? `http_${response.statusCode}`;
    if (!mustWait(response.statusCode))
      return errors.syncRefused(url, response.statusCode, code, refusalDetail(response.statusCode, code, this.base));
    const retryAfter = headerOf(response.headers['retry-after']) ?? undefined;
    const notBefore = retryNotBefore(response.statusCode, retryAfter, this.options.now());
    const until = notBefore.toISOString().replace('.000Z', 'Z');
    await this.options.recordWait(until, `${response.statusCode} ${code}`);
    return errors.syncRefused(url, response.statusCode, code, `try again after ${until}; until then this command makes no call`);
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

export const headerOf = (value: string | string[] | undefined): string | null =>
  Array.isArray(value) ? (value[0] ?? null) : (value ?? null);

/** What a refusal means for the operator: a 404 that is not the service's own answer is a wrong --api. */
function refusalDetail(status: number, code: string, base: string): string {
  if (status === 404 && code === 'no_release') return 'nothing has been published yet';
  if (status === 404 && !/\/v1$/.test(base))
    return `not synced: --api must be the service's /v1 base URL (e.g. ${base.replace(/\/+$/, '')}/v1), which answers /version`;
  if (status === 404) return "not synced: no such path; is --api the service's /v1 base URL?";
  return 'not synced';
}
