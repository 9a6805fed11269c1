import type { Consumption, Principal } from './records.ts';
import type { Authenticate } from './store.ts';

/** What authenticating a key gives: its account and key, and the read taken when one was asked for. */
export type Authenticated = (Principal & { read?: Consumption }) | null;

/** One authentication waiting for its group. */
export interface AuthenticationRequest {
  fingerprint: string;
  now: Date;
  read?: { periodStart: string; limit: number };
}

/** Last use is recorded at most once a minute per key, so the hot path rarely writes for it. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * "Group commit" for the hot path: the authentications that arrive in one turn of the event loop
 * go to the database together, in one transaction, each still decided in arrival order. A commit
 * costs more than the work it holds, so under load this multiplies throughput; alone, a request
 * costs what it did. `run` answers each request, in order.
 */
export function groupedAuthentication(run: (group: AuthenticationRequest[]) => Promise<Authenticated[]>): Authenticate {
  type Waiting = AuthenticationRequest & { resolve: (value: Authenticated) => void; reject: (error: unknown) => void };
  let waiting: Waiting[] = [];
  const flush = () => {
    const group = waiting;
    waiting = [];
    run(group).then(
      (results) => group.forEach((request, i) => request.resolve(results[i]!)),
      (error: unknown) => group.forEach((request) => request.reject(error)),
    );
  };
  return (fingerprint, now, read) =>
    new Promise((resolve, reject) => {
      waiting.push({ fingerprint, now, read, resolve, reject });
      if (waiting.length === 1) setImmediate(flush);
    });
}
