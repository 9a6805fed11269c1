import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { HOLD_MODES, storeProxy, type HoldMode, type StoreProxy } from '../helpers/s3-store-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { expectedWrites } from './expected-writes.ts';
import { fixedCore, momentsOf, planned, variantOf, wholeMatrix, withVariants, type Scenario } from './matrix-plan.ts';
import { close, pausePair, prepare, recordWrites, RIVAL, type A_COMMANDS, type Base, type Stopper } from './paused-writers.ts';
import { matrixChoice } from './proven.ts';
import { s3Backend } from './s3-backend.ts';
import { endWritersAfterEachTest } from './writers.ts';

/**
 * The lost-answer matrix beside the pause matrix (docs/architecture.md, "Every bucket write"), on
 * Ceph's RADOS Gateway: writer A reaches the store through a proxy that holds one of its write
 * requests in turn, the 1st, the 2nd …, three ways (the request held before the store; the store's
 * answer held; the answer lost, so the SDK tries again, and that try held); its lease is taken
 * from it; writer B, straight to the store, runs a command to its end; then the network lets A's
 * request or answer go. The judge is the pause matrix's: what each reported is what the bucket
 * holds, nothing B reported done is lost, current.json moved only by reported switches, and
 * `verify --bucket` is clean. Run for `commands` (two files share them, so that they run side by
 * side); the fixed core and a slice of the rotation, or whole (test/paused/matrix-plan.ts).
 */
export function lostAnswerMatrix(commands: readonly (typeof A_COMMANDS)[number][]): void {
  let s3: S3Stand;
  let base: Base;
  let proxy: StoreProxy;
  let plan: Scenario[] = [];
  const lists = new Map<string, string[]>();
  const backend = s3Backend(() => s3);
  const choice = matrixChoice();
  endWritersAfterEachTest();

  beforeAll(async () => {
    s3 = await startS3();
    proxy = await storeProxy({ endpoint: s3.endpoint });
    base = await prepare(backend);
    // A's write requests, alone, as the proxy counts them (the moments of every mode).
    for (const a of commands) {
      const before = proxy.writes.length;
      await recordWrites(backend, base, a, { AWS_ENDPOINT_URL_S3: proxy.url });
      lists.set(a, proxy.writes.slice(before));
    }
    // Each (command, way of holding) is a pair of its own.
    const byMode = withVariants(lists, RIVAL, HOLD_MODES);
    plan = planned(wholeMatrix(byMode.lists, byMode.pairs), fixedCore(lists, RIVAL, HOLD_MODES), choice);
    console.log(`S3 lost-answer matrix (${commands.join(', ')}): ${plan.length} scenarios (${choice.why})`);
  });
  afterAll(async () => {
    await close(base);
    await proxy?.close();
    await s3?.close();
  });

  describe('an S3 bucket (Ceph RGW): what each command sends, alone', () => {
    it.each(commands)('%s sends the write requests of its expected list, in order (a new one shows here)', (a) => {
      expectedWrites('S3 requests', a, lists.get(a)!);
    });
  });

  describe.each(commands)('an S3 bucket (Ceph RGW): %s, its write requests held or lost in the network', (a) => {
    it.for(HOLD_MODES)(`%s, while B runs to its end: every report true, the bucket verifying`, async (mode, { skip }) => {
      const moments = momentsOf(plan, variantOf(a, mode), RIVAL[a]);
      if (moments.length === 0) return skip(`no moment of this case in this run (${choice.why})`);
      const count = lists.get(a)!.length;
      const tried = await pausePair(backend, base, a, RIVAL[a], count, { stopper: heldByNetwork(() => proxy, mode), moments });
      expect(tried).toBe(moments.length);
    });
  });
}

/** A held by the network at its write request `at` (counted at the proxy: the SDK's tries each count). */
function heldByNetwork(proxyOf: () => StoreProxy, mode: HoldMode): Stopper {
  let holding: ReturnType<StoreProxy['holdWrite']> | null = null;
  let line: string | null | undefined;
  return {
    what: `with its ${mode} at write request`,
    env(at) {
      line = undefined;
      const proxy = proxyOf();
      holding = proxy.holdWrite(Number(at), mode);
      void holding.held.then((held) => (line = held));
      // A waits for what is held however long B takes (its own timeouts are not what is tried here);
      // the lost answer's retry comes at once, as the SDK sends it.
      return { AWS_ENDPOINT_URL_S3: proxy.url, TARIFF_S3_IDLE_TIMEOUT_MS: '600000', TARIFF_S3_DEADLINE_SECONDS: '600' };
    },
    async stopped(_at, writer, log) {
      await waitFor(() => writer.ended() || line !== undefined, 'A to end or reach its held request');
      if (line === undefined || line === null) {
        holding?.release();
        return null;
      }
      return { line, logged: Math.max(log().length, 1) };
    },
    resume: () => holding?.release(),
  };
}
