import { readFileSync } from 'node:fs';
import { checkItem } from '../barcodes/validate-item.ts';
import { READ_LIMIT, type Registry } from '../registry/registry.ts';
import type { Format } from '../release/manifest.ts';
import { formatWithOffset } from '../util/dates.ts';
import { parseBatch, parsePage } from './api-input.ts';
import type { BackgroundHealth } from '../util/background-read.ts';
import type { CurrentRelease } from './current-release.ts';
import { header, json, type HttpResponse } from './http.ts';
import { httpErrors } from './http-errors.ts';
import { apiKey, type ApiContext, type Parse } from './middleware/api-key.ts';
import { dayWindow, hourWindow, rateLimitHeaders, secondsUntil } from './quota-window.ts';
import { createRouter, route, type Route } from './router.ts';
import type { ServiceMetrics } from './service-metrics.ts';

/** The `<product>` part of download file names: `tariffa-tabacchi-20261101.1.json.gz`. */
export const PRODUCT_SLUG = 'tariffa-tabacchi';

export interface AppOptions {
  registry: Registry;
  release: CurrentRelease;
  now: () => Date;
  /** Told of reads, quota refusals and downloads (the service's /metrics). */
  metrics?: ApiMetrics;
  /** The other reads of the bucket that run in the background (the catalogue's history), for /healthz. */
  background?: () => BackgroundHealth[];
}

type ApiMetrics = Pick<ServiceMetrics, 'readSpent' | 'quotaRefused' | 'download'>;

/** The paths the API answers (no session, JSON errors); every other path is the website's. */
export const isApiPath = (path: string): boolean =>
  path === '/v1' || path.startsWith('/v1/') || path === '/healthz' || path === '/readyz' || path === '/openapi.json' || path === KEYS_PATH;

/** The public keys that sign manifests, outside /v1 so checking a signature costs no read. */
export const KEYS_PATH = '/.well-known/tariff-keys.json';

/** The methods of a read: HEAD is answered wherever GET is, and under /v1 spends a read like it. */
const READ = ['GET', 'HEAD'] as const;

/** The machine-readable description of this API (docs/openapi.json), served as kept in the repository. */
const OPENAPI = readFileSync(new URL('../../docs/openapi.json', import.meta.url));

/** A release file, with its SHA-256 as ETag: 304 when the client holds it, the file otherwise. */
const download =
  (release: CurrentRelease, format: Format, metrics: ApiMetrics | undefined) =>
  async ({ request, rateHeaders }: ApiContext): Promise<HttpResponse> => {
    const current = release.current;
    if (!current) return httpErrors.noRelease(rateHeaders);
    const etag = `"${current.manifest.files[format].sha256}"`;
    const headers = { etag, 'cache-control': 'private, no-cache', ...rateHeaders };
    if (matchesEtag(header(request, 'if-none-match'), etag)) {
      metrics?.download(format, 304, 0);
      return { status: 304, headers, body: null };
    }
    const file = await release.file(current, format);
    if (!file) return httpErrors.releaseUnavailable(rateHeaders);
    metrics?.download(format, 200, request.method === 'HEAD' ? 0 : file.size);
    return {
      status: 200,
      headers: {
        'content-type': 'application/gzip',
        'content-length': String(file.size),
        'content-disposition': `attachment; filename="${PRODUCT_SLUG}-${file.version}.${format}.gz"`,
        ...headers,
      },
      body: file.body,
    };
  };

/** The current manifest, as the bucket holds it. */
const version =
  (release: CurrentRelease) =>
  async ({ rateHeaders }: ApiContext): Promise<HttpResponse> => {
    const current = release.current;
    if (!current) return httpErrors.noRelease(rateHeaders);
    const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...rateHeaders };
    return { status: 200, headers, body: current.manifestBody };
  };

/** One counter of `/v1/me`'s limits. */
const counter = (period: string, limit: number, used: number, resetsAt: Date) => ({
  period,
  limit,
  used,
  remaining: Math.max(0, limit - used),
  resetsAt: formatWithOffset(resetsAt),
});

/** The account and its two counters: reads today, submissions this hour. */
const me =
  (registry: Registry) =>
  async ({ principal, now, rateHeaders }: ApiContext): Promise<HttpResponse> => {
    const { account } = principal;
    const day = dayWindow(now);
    const hour = hourWindow(now);
    const [reads, submits] = await Promise.all([
      registry.usage(account.id, 'read', day.periodStart),
      registry.usage(account.id, 'submit', hour.periodStart),
    ]);
    const limits = {
      read: counter('day', READ_LIMIT, reads, day.resetsAt),
      submit: counter('hour', account.submitLimit, submits, hour.resetsAt),
    };
    return json(200, { email: account.email, type: account.type, limits }, rateHeaders);
  };

/** A batch of barcode matches: each item checked, then recorded with its submissions counted, in one transaction. */
const submit =
  (registry: Registry, release: CurrentRelease, metrics: ApiMetrics | undefined) =>
  async ({ principal, now, input }: ApiContext<unknown[]>): Promise<HttpResponse> => {
    const { account } = principal;
    const hour = hourWindow(now);
    const admCodes = release.current?.admCodes;
    const checks = input.map((item) => checkItem(item, account.type, (code) => admCodes?.has(code) ?? false));
    const outcome = await registry.submitBarcodes({ account, periodStart: hour.periodStart, checks }, now);
    const headers = rateLimitHeaders(account.submitLimit, outcome.used, hour.resetsAt);
    if (!outcome.allowed) {
      metrics?.quotaRefused('submit');
      const remaining = Math.max(0, account.submitLimit - outcome.used);
      return httpErrors.rateLimited(secondsUntil(hour.resetsAt, now), headers, { limit: account.submitLimit, remaining });
    }
    const count = (name: string) => outcome.results.filter((result) => result.outcome === name).length;
    const body = { accepted: count('accepted'), unchanged: count('unchanged'), rejected: count('rejected'), results: outcome.results };
    return json(200, body, headers);
  };

/**
 * 503 when stale, so a load balancer or monitor acts on it (docs/operations.md): the served release,
 * or another read of the bucket (the price history the pages show), not followed for too long.
 */
const healthz = (release: CurrentRelease, background: () => BackgroundHealth[]) => async (): Promise<HttpResponse> => {
  const health = release.health();
  const reads = background();
  const stale = reads.find((read) => read.stale);
  const status = health.status === 'ok' && !stale ? 'ok' : 'stale';
  const problem =
    health.problem ?? (stale ? `the ${stale.read} was not read for too long${stale.problem ? `: ${stale.problem}` : ''}` : null);
  return json(status === 'ok' ? 200 : 503, { ...health, status, problem, background: reads });
};

/** Seconds a load balancer waits before asking a not-ready instance again. */
const READY_RETRY_SECONDS = 5;

/**
 * Readiness, for a load balancer: 200 once this instance serves a release, 503 (with Retry-After)
 * before, when every download would be a 404 (an empty bucket, a first read not done). Unlike
 * /healthz it says nothing of staleness: an instance serving an older release still answers, and
 * taking every instance out of rotation when the bucket is slow to read would answer nobody.
 */
const readyz = (release: CurrentRelease) => async (): Promise<HttpResponse> => {
  const served = release.current?.manifest.version ?? null;
  if (served) return json(200, { status: 'ready', release: served });
  const body = {
    status: 'not_ready',
    release: null,
    problem: 'no release is served yet: the bucket names no current release that verifies',
  };
  return json(503, body, { 'retry-after': String(READY_RETRY_SECONDS) });
};

/**
 * The HTTP service: `/healthz`, `/readyz` and `/openapi.json` outside /v1, and the /v1 routes of interface
 * spec section 4. Order: route match (unknown path 404, wrong method 405, both free), the key
 * (401), the request's parameters or body (400, free), then the quota and the call. A GET takes
 * one read from the account's daily counter in the same transaction as the key lookup (429 when
 * spent); POST /v1/barcodes takes one submission per item, atomically with recording the batch.
 */
export function createApp(options: AppOptions) {
  const { registry, release, metrics } = options;
  const reading = <Input = undefined>(parse?: Parse<Input>) =>
    apiKey<Input>({ registry, now: options.now, spendsRead: true, parse, metrics });

  const routes: Route[] = [
    route(READ, '/healthz', healthz(release, options.background ?? (() => []))),
    route(READ, '/readyz', readyz(release)),
    route(READ, '/openapi.json', async () => ({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=3600' },
      body: OPENAPI,
    })),
    route(READ, KEYS_PATH, async () => ({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
      body: release.keys,
    })),
    route(READ, '/v1/version', reading()(version(release))),
    route(READ, '/v1/dataset.json.gz', reading()(download(release, 'json', metrics))),
    route(READ, '/v1/dataset.sqlite.gz', reading()(download(release, 'sqlite', metrics))),
    route(READ, '/v1/dataset.docdb.gz', reading()(download(release, 'docdb', metrics))),
    route(READ, '/v1/me', reading()(me(registry))),
    route(
      READ,
      '/v1/my-submissions',
      reading(parsePage)(async ({ principal, input, rateHeaders }) =>
        json(200, { items: await registry.mySubmissions(principal.account.id, input.limit, input.offset) }, rateHeaders),
      ),
    ),
    route(
      'POST',
      '/v1/barcodes',
      apiKey({ registry, now: options.now, spendsRead: false, parse: parseBatch })(submit(registry, release, metrics)),
    ),
  ];
  return createRouter(routes, {
    notFound: () => httpErrors.notFound(),
    methodNotAllowed: (_, allow) => httpErrors.methodNotAllowed(allow),
  });
}

/** If-None-Match holds the ETag, `*`, or a list including it (weak or strong). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value === etag || value === `W/${etag}`;
  });
}
