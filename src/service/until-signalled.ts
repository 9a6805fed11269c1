import { claimSignals } from '../util/orderly-stop.ts';
import type { RunningService } from './start-service.ts';

/** Runs the service until SIGINT or SIGTERM, then stops it: resolves once it has stopped. */
export function untilSignalled(service: RunningService): Promise<void> {
  // The service's stop answers its requests in flight: it, not the command's generic stop, handles the signals.
  claimSignals();
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      service.stop().then(resolve, reject);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
