import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { storeProxy, type HoldMode, type StoreProxy } from '../helpers/s3-store-proxy.ts';
import { A_COMMANDS, close, pausePair, prepare, type Base, type Command, type Stopper } from './paused-writers.ts';
import { s3Backend } from './s3-backend.ts';

/**
 * The lost-answer matrix beside the pause matrix (docs/architecture.md, "Every bucket write"), on
 * Ceph's RADOS Gateway: writer A reaches the store through a proxy that holds one of its write
 * requests in turn, the 1st, the 2nd …, three ways (the request held before the store; the store's
 * answer held; the answer lost, so the SDK tries again, and that try held); its lease is taken
 * from it; writer B, straight to the store, runs a command to its end; then the network lets A's
 * request or answer go. The judge is the pause matrix's: what each reported is what the bucket
 * holds, nothing B reported done is lost, current.json moved only by reported switches, and
 * `verify --bucket` is clean. Run for `commands` (two files share them, so that they run side by side).
 */
export function lostAnswerMatrix(commands: readonly (typeof A_COMMANDS)[number][]): void {
  let s3: S3Stand;
  let base: Base;
  let proxy: StoreProxy;
  const backend = s3Backend(() => s3);

  beforeAll(async () => {
    s3 = await startS3();
    proxy = await storeProxy({ endpoint: s3.endpoint });
    base = await prepare(backend);
  });
  afterAll(async () => {
    await close(base);
    await proxy?.close();
    await s3?.close();
  });

  describe.each(commands)('an S3 bucket (Ceph RGW): %s, each of its write requests held or lost in the network', (a) => {
    it.each(MODES)(`%s, while B runs to its end: every report true, the bucket verifying`, async (mode) => {
      const moments = await pausePair(
        backend,
        base,
        a,
        RIVAL[a],
        heldByNetwork(() => proxy, mode),
      );
      expect(moments, 'A was held at one write request at least').toBeGreaterThan(0);
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
    async stopped(_at, _child, ended, log) {
      for (let waited = 0; !ended() && line === undefined; waited += 10) {
        if (waited > 120_000) throw new Error('A neither ended nor reached its held request within 2 minutes');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (line === undefined || line === null) {
        holding?.release();
        return null;
      }
      return { line, logged: Math.max(log().length, 1) };
    },
    resume: () => holding?.release(),
  };
}

/** B, for each A: the writer that contends for what A writes. */
const RIVAL: Record<(typeof A_COMMANDS)[number], Command> = {
  publish: 'publish-next',
  release: 'publish-next',
  rollback: 'publish-next',
  'signing-key create': 'signing-key create',
  'signing-key retire': 'signing-key create',
  'history import': 'history import',
  'history remove': 'history import',
  'registry backup': 'registry backup',
};

const MODES: HoldMode[] = ['request held', 'answer held', 'answer lost'];
