import cluster from 'node:cluster';
import { RequestLog } from './request-log.ts';

/**
 * Runs `workers` copies of the service sharing one port (node:cluster): one process per core.
 * They share the registry (SQLite serialises their writes, so quotas stay exact) and each polls
 * the bucket. A worker that dies is replaced; SIGINT/SIGTERM stop them all.
 */
export async function superviseWorkers(workers: number, stdout: NodeJS.WritableStream): Promise<void> {
  const log = new RequestLog(stdout);
  let stopping = false;
  let announced = false;
  const fork = () => {
    const worker = cluster.fork();
    worker.on('listening', (address) => {
      if (announced) return;
      announced = true;
      log.write({ event: 'service.listening', url: `http://${address.address}:${address.port}`, workers });
      log.flush();
    });
  };
  for (let i = 0; i < workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.write({ event: 'worker.exit', pid: worker.process.pid, code, signal });
    // A crash loop must not become a fork loop: wait a second before replacing the worker.
    setTimeout(fork, 1_000).unref();
  });
  await new Promise<void>((resolve) => {
    const stop = () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      const check = setInterval(() => {
        if (Object.keys(cluster.workers ?? {}).length === 0) {
          clearInterval(check);
          log.write({ event: 'service.stopped' });
          log.flush();
          resolve();
        }
      }, 50);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
