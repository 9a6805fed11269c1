import type { Registry } from '../registry/registry.ts';

export interface PurgeLoopOptions {
  intervalMs: number;
  /** Rows per kind per statement; a tick runs at most `maxBatches` of them. */
  batch: number;
  maxBatches: number;
  now: () => Date;
  log: (event: Record<string, unknown>) => void;
}

/**
 * Deletes expired registry rows in the background: at start, then every interval, in bounded
 * batches (never more than `maxBatches` a tick), so the registry stays the size of what is live
 * without a long write ever holding it. Each tick also vets the self-service accounts that have
 * waited their vetting days, so their votes start counting within an interval of it. The timer
 * never keeps the process alive; a failed tick is logged and tried again at the next one.
 */
export function startPurgeLoop(registry: Registry, options: PurgeLoopOptions): { stop: () => Promise<void> } {
  let running: Promise<void> | null = null;
  const tick = async () => {
    const total: Record<string, number> = {};
    try {
      for (let i = 0; i < options.maxBatches; i++) {
        const counts = await registry.purgeExpired(options.now(), options.batch);
        for (const [name, n] of Object.entries(counts)) total[name] = (total[name] ?? 0) + n;
        if (Object.values(counts).every((n) => n < options.batch)) break;
      }
      if (Object.values(total).some((n) => n > 0)) options.log({ event: 'registry.purged', ...total });
      const vetted = await registry.vetAccountsOfAge(options.now());
      if (vetted.length > 0) options.log({ event: 'accounts.vetted', count: vetted.length });
    } catch (error) {
      options.log({ event: 'registry.purge_failed', error: (error as Error).message });
    }
  };
  const run = () => {
    if (!running) running = tick().finally(() => (running = null));
  };
  const first = setTimeout(run, 0);
  const timer = setInterval(run, options.intervalMs);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
