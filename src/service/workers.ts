import cluster, { type Worker } from 'node:cluster';
import type { Settings } from '../config/settings.ts';
import { RequestLog } from '../server/request-log.ts';
import { claimSignals } from '../util/orderly-stop.ts';
import { checkMetricsSettings, superviseMetrics } from './metrics-listener.ts';

/** A worker gets the service's grace and this much more to close its registry before it is killed. */
const WORKER_EXIT_MARGIN_MS = 5_000;
/** A crash loop must not become a fork loop: a worker that died is replaced after this long. */
const REPLACE_AFTER_MS = 1_000;

/**
 * Runs `workers` copies of the service sharing one port (node:cluster): one process per core.
 * They share the registry (SQLite serialises their writes, so quotas stay exact) and each polls
 * the bucket. A worker that dies is replaced; SIGINT/SIGTERM stop them all, killing any that has
 * not exited after the shutdown grace.
 */
export async function superviseWorkers(options: {
  workers: number;
  shutdownGraceMs: number;
  stdout: NodeJS.WritableStream;
  /** Where every worker's metrics are scraped together, if anywhere. */
  metrics: Pick<Settings, 'metricsPort' | 'metricsHost' | 'metricsToken'>;
}): Promise<void> {
  const { workers, shutdownGraceMs } = options;
  checkMetricsSettings(options.metrics);
  const log = new RequestLog(options.stdout);
  const metrics = await superviseMetrics(options.metrics, log);
  let stopping = false;
  let announced = false;
  const fork = () => {
    if (stopping) return;
    const worker = cluster.fork();
    worker.on('listening', (address) => {
      if (announced) return;
      announced = true;
      log.write({ event: 'service.listening', url: `http://${address.address}:${address.port}`, workers });
      log.flush();
    });
  };
  // A worker whose process has exited is gone, whether or not node:cluster has also seen its channel
  // close (it drops a worker from its list only after both): a stop waits for processes, not bookkeeping.
  const running = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
  for (let i = 0; i < workers; i++) fork();
  await new Promise<void>((resolve) => {
    let finished = false;
    const finishIfDone = () => {
      if (finished || !stopping || running().length > 0) return;
      finished = true;
      clearTimeout(deadline);
      void metrics?.close();
      log.write({ event: 'service.stopped' });
      log.flush();
      resolve();
    };
    let deadline: NodeJS.Timeout | undefined;
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return finishIfDone();
      log.write({ event: 'worker.exit', pid: worker.process.pid, code, signal });
      setTimeout(fork, REPLACE_AFTER_MS).unref();
    });
    cluster.on('disconnect', finishIfDone);
    const stop = () => {
      stopping = true;
      for (const worker of running()) worker.process.kill('SIGTERM');
      deadline = setTimeout(() => {
        for (const worker of running()) {
          log.write({ event: 'worker.killed', pid: worker.process.pid, reason: 'still running after the shutdown grace' });
          worker.process.kill('SIGKILL');
        }
      }, shutdownGraceMs + WORKER_EXIT_MARGIN_MS);
      finishIfDone();
    };
    // The supervisor's stop is its workers' (each answers its requests in flight), not the command's generic one.
    claimSignals();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
