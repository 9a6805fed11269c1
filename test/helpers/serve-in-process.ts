import { Writable } from 'node:stream';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import { startService } from '../../src/service/start-service.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import type { RunningServe } from './serve-process.ts';

/**
 * Starts the service in this process, as `tariff serve --data-dir <dataDir>` would with these
 * variables, on an ephemeral loopback port: the same service without a process start-up, for the
 * tests of what it answers. What needs a process (signals, workers, the exit status) uses `startServe`.
 */
export async function serveInProcess(
  dataDir: string,
  env: Record<string, string> = {},
  edges: { now?: () => Date; bucket?: Bucket } = {},
): Promise<RunningServe> {
  const variables = { ...process.env, ...env };
  const { settings } = await resolveSettings({ flags: { host: '127.0.0.1', port: '0' }, env: variables, dataDir });
  const log: Record<string, unknown>[] = [];
  const waiting: { matches: (entry: Record<string, unknown>) => boolean; resolve: (entry: Record<string, unknown>) => void }[] = [];
  let partial = '';
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines.filter(Boolean)) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        log.push(entry);
        for (const waiter of waiting.filter((w) => w.matches(entry))) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(entry);
        }
      }
      done();
    },
  });
  const service = await startService({
    settings,
    dataDir,
    env: variables,
    now: edges.now ?? (() => new Date()),
    stdout,
    bucket: edges.bucket,
  });
  return {
    url: service.listening.url,
    log,
    stderr: async () => '',
    logged: (matches) =>
      new Promise((resolve) => {
        const seen = log.find(matches);
        if (seen) resolve(seen);
        else waiting.push({ matches, resolve });
      }),
    stop: async () => {
      await service.stop();
      return 0;
    },
  };
}
