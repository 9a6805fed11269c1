import { errors } from '../errors.ts';
import { sameSecret, sha256Hex } from '../util/digests.ts';
import { header, type HttpResponse } from './http.ts';
import { httpErrors } from './http-errors.ts';
import { listen, type ListeningServer } from './node-adapter.ts';
import type { RequestLog } from './request-log.ts';
import { createRouter, route } from './router.ts';

export interface MetricsEndpointOptions {
  host: string;
  port: number;
  /** The bearer token a scrape must send; none on a loopback address is allowed (only this machine can ask). */
  token: string | undefined;
  /** The exposition text and its content type, gathered for each scrape (a worker's own, or every worker's). */
  gather: () => Promise<{ contentType: string; body: string }>;
  log: RequestLog;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

/** A token is required wherever /metrics would be reachable from another machine. */
export function checkMetricsExposure(host: string, token: string | undefined): void {
  if (!LOOPBACK.test(host) && !token)
    throw errors.settingInvalid(
      `metricsHost ${host} would expose /metrics beyond this machine without a token: set TARIFF_METRICS_TOKEN, or keep metricsHost on 127.0.0.1`,
    );
}

/**
 * `GET /metrics` in Prometheus's text format, on a listener of its own (setting metricsPort): the
 * API's port never answers it. With a token, a scrape without `Authorization: Bearer <token>` is
 * refused (401); the comparison is of the digests, in constant time.
 */
export function listenMetrics(options: MetricsEndpointOptions): Promise<ListeningServer> {
  checkMetricsExposure(options.host, options.token);
  const expected = options.token ? sha256Hex(options.token) : undefined;
  const authorised = (authorization: string | undefined) => {
    if (!expected) return true;
    const presented = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    return presented !== undefined && sameSecret(sha256Hex(presented), expected);
  };
  const scrape = async (authorization: string | undefined): Promise<HttpResponse> => {
    if (!authorised(authorization)) return httpErrors.invalidMetricsToken();
    const { contentType, body } = await options.gather();
    return { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' }, body };
  };
  const router = createRouter([route(['GET', 'HEAD'], '/metrics', ({ request }) => scrape(header(request, 'authorization')))], {
    notFound: () => httpErrors.notFound(),
    methodNotAllowed: (_, allow) => httpErrors.methodNotAllowed(allow),
  });
  return listen(router, { host: options.host, port: options.port, log: options.log });
}
