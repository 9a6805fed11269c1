import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import type { Settings } from '../config/settings.ts';
import { checkMetricsExposure, listenMetrics } from '../server/metrics-endpoint.ts';
import type { ListeningServer } from '../server/node-adapter.ts';
import type { RequestLog } from '../server/request-log.ts';
import { answerPrimary, ClusterMetrics } from './cluster-metrics.ts';

type MetricsSettings = Pick<Settings, 'metricsPort' | 'metricsHost' | 'metricsToken'>;

/** Refuses, before anything starts, a metrics listener reachable from other machines without a token. */
export function checkMetricsSettings(settings: MetricsSettings): void {
  if (settings.metricsPort !== undefined) checkMetricsExposure(settings.metricsHost, settings.metricsToken);
}

/**
 * Where a process's metrics are scraped (metricsPort is set). A single process listens on it with
 * its own registry; a worker of `--workers` answers the primary over the cluster's channel instead,
 * and the primary listens and combines every worker's (superviseMetrics): null then.
 */
export async function exposeMetrics(registry: Registry, settings: MetricsSettings, log: RequestLog): Promise<ListeningServer | null> {
  if (cluster.isWorker) {
    answerPrimary(registry);
    return null;
  }
  return listenOn(settings, log, async () => ({ contentType: registry.contentType, body: await registry.metrics() }));
}

/** The primary of `--workers`: every worker's metrics together (counters summed, gauges as each says). */
export function superviseMetrics(settings: MetricsSettings, log: RequestLog): Promise<ListeningServer | null> {
  if (settings.metricsPort === undefined) return Promise.resolve(null);
  const workers = new ClusterMetrics();
  return listenOn(settings, log, () => workers.gather());
}

async function listenOn(
  settings: MetricsSettings,
  log: RequestLog,
  gather: () => Promise<{ contentType: string; body: string }>,
): Promise<ListeningServer | null> {
  if (settings.metricsPort === undefined) return null;
  const listening = await listenMetrics({
    host: settings.metricsHost,
    port: settings.metricsPort,
    token: settings.metricsToken,
    gather,
    log,
  });
  log.write({ event: 'metrics.listening', url: `${listening.url}/metrics`, token: settings.metricsToken !== undefined });
  return listening;
}
