import * as z from 'zod';
import { errors, isTariffError } from '../errors.ts';
import { NotAnObject, type Bucket, type TaggedObject } from '../storage/bucket.ts';
import type { HolderState, ProcessIdentity } from '../util/process-identity.ts';
import { sha256Hex } from '../util/digests.ts';

/** The object in the bucket that says who writes it now: one writer at a time, across machines. */
export const LEASE_KEY = 'writer-lock.json';

/** The longest life a lease may state (TARIFF_LOCK_STALE_SECONDS is at most 3600). */
const MAX_LEASE_TTL_MS = 3_600_000;

const identitySchema = z.object({
  boot: z.string().nullable(),
  pidNamespace: z.string().nullable(),
  pid: z.number().int(),
  started: z.string().nullable(),
});

const leaseSchema = z.object({
  /** The command ("tariff publish"). */
  owner: z.string(),
  /** For people reading the lease; never used to decide whether the holder is gone. */
  host: z.string(),
  pid: z.number().int(),
  /** The holder's clock, for people: another machine's time decides nothing here. */
  since: z.string(),
  expires: z.string(),
  /**
   * How long the holder lets the lease go unrenewed (it renews at a third of it). More than an
   * hour is not believed: the lease is then unreadable, waited out for the reader's own time to live.
   */
  ttlMs: z.number().int().positive().max(MAX_LEASE_TTL_MS),
  /** Renewals so far: every renewal changes the bytes, so a waiting writer sees the holder is alive. */
  renewals: z.number().int().nonnegative(),
  holder: identitySchema,
});
export type LeaseHolder = z.infer<typeof leaseSchema>;

/**
 * A lease let go: written over the holder's own lease by compare-and-swap, never a deletion, so a
 * release that reaches the store late (held in the network past another writer's takeover) is
 * refused by the store rather than removing the other writer's lease. Free to take at once.
 */
const releasedSchema = z.object({ released: z.string(), by: z.string(), host: z.string(), pid: z.number().int() });

/** Whether a writer holds the lease these bytes are (null: no lease object): not when it was let go. */
export function leaseHeld(bytes: Uint8Array | null): boolean {
  if (bytes === null) return false;
  try {
    return !releasedSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8'))).success;
  } catch {
    return true;
  }
}

function releasedBytes(options: Pick<LeaseOptions, 'owner' | 'host' | 'identity' | 'now'>): Buffer {
  const body = { released: options.now().toISOString(), by: options.owner, host: options.host, pid: options.identity.pid };
  return Buffer.from(`${JSON.stringify(body)}\n`);
}

/** A lease a waiting writer has seen, unchanged since `since` on its own clock (kept across runs by the caller). */
export interface LeaseSighting {
  /** The SHA-256 of the lease's bytes and its tag: the lease as seen. */
  digest: string;
  since: string;
}

export interface LeaseOptions {
  owner: string;
  host: string;
  identity: ProcessIdentity;
  /** Whether the process a lease names runs (util/process-identity.ts): only `gone` is taken over at once. */
  holderState: (holder: ProcessIdentity) => HolderState;
  /** This machine's clock: every time this module judges is measured on it, never read from the lease. */
  now: () => Date;
  /** How long the lease holds without renewal: a lease seen unchanged this long is abandoned. */
  ttlMs: number;
  /** How long to wait for another writer to finish before giving up, naming it. */
  waitMs: number;
  /** Waits between tries (a test passes one that moves its clock). */
  sleep: (ms: number) => Promise<void>;
  /** Where a waiting writer keeps what it saw, so that the next run goes on counting (a cron run gives up before a lease's whole life). */
  sightings?: { read(): Promise<LeaseSighting | null>; write(sighting: LeaseSighting | null): Promise<void> };
  /** Told the lease's bytes as soon as they are written, before the lease is returned (a stop lets them go). */
  written?: (mine: Buffer) => void;
}

/** A lease held on a bucket: renewed in the background until released. */
export interface BucketLease {
  /**
   * Said once when the store wrote over an existing object although told not to (it ignores
   * conditional writes): the lease then keeps no other writer out.
   */
  readonly warning: string | null;
  /**
   * Before every write of the holder: the lease is still this writer's in the bucket and was
   * renewed within half its life (else renewed now), or `bucket_lease_lost` is thrown and the
   * writer stops before writing.
   */
  check(): Promise<void>;
  /** Lets the bucket go; it is no longer renewed. */
  release(): Promise<void>;
}

/** Waits between tries: short at first (a publication's bucket work takes a second or two), then up to a second. */
const FIRST_RETRY_MS = 20;
const MAX_RETRY_MS = 1_000;

/**
 * Takes the bucket's writer lease: the lease object created only if absent (If-None-Match: *), or
 * taken over (If-Match on what was read) by compare-and-swap, so two writers never both hold it.
 * A lease is taken over only when its holder is provably a process of this machine and PID
 * namespace that no longer runs, or when this writer has seen it unchanged for its whole time to
 * live on its own clock; whatever time the lease states, and a lease it cannot read, wait that
 * long. While another holds it, waits up to `waitMs`, then stops with `bucket_busy` naming the
 * holder. The store's conditions are then proved on the lease (probeConditions) before any other write.
 */
export async function acquireBucketLease(bucket: Bucket, options: LeaseOptions): Promise<BucketLease> {
  const deadline = options.now().getTime() + options.waitMs;
  let seen = (await options.sightings?.read()) ?? null;
  for (let wait = FIRST_RETRY_MS; ; wait = Math.min(wait * 2, MAX_RETRY_MS)) {
    const existing = await bucket.getTagged(LEASE_KEY).catch((error: unknown) => {
      // A folder or a FIFO where the lease should be: no writer can take it until someone moves it away.
      if (error instanceof NotAnObject)
        throw errors.bucketBusy(
          `${bucket.description}${LEASE_KEY}`,
          `${LEASE_KEY} is ${error.kind}, not a lease: move it away once no writer runs`,
        );
      throw error;
    });
    const holder = existing ? parseHolder(existing) : null;
    const digest = existing ? sha256Hex(Buffer.concat([existing.bytes, Buffer.from(`\n${existing.tag}`)])) : null;
    if (existing && seen?.digest !== digest) seen = { digest: digest!, since: options.now().toISOString() };
    const unchangedMs = seen && existing ? options.now().getTime() - Date.parse(seen.since) : 0;
    // A holder asking for a longer life than ours is given it: its renewals come that much further apart.
    const ttlMs = Math.max(options.ttlMs, holder?.ttlMs ?? 0);
    const free =
      !leaseHeld(existing?.bytes ?? null) || (holder !== null && options.holderState(holder.holder) === 'gone') || unchangedMs >= ttlMs;
    if (free) {
      const mine = leaseBytes(options, 0, options.now());
      if ((await bucket.putIfUnchanged(LEASE_KEY, mine, 'application/json', existing?.tag ?? null)) === 'written') {
        options.written?.(mine);
        await options.sightings?.write(null);
        const probed = await probeConditions(bucket, mine, options);
        return heldLease(bucket, options, probed.held, probed.warning);
      }
      continue;
    }
    if (options.now().getTime() >= deadline) {
      await options.sightings?.write(seen);
      throw errors.bucketBusy(`${bucket.description}${LEASE_KEY}`, describeHolder(holder, ttlMs - unchangedMs));
    }
    await options.sleep(wait);
  }
}

/**
 * Lets the lease go if it is still the one written as `mine` (a writer stopped while it took it):
 * written over by compare-and-swap on the tag read with it, so another writer's lease, taken over
 * meanwhile, is never touched.
 */
export async function letGoOf(
  bucket: Bucket,
  mine: Buffer,
  options: Pick<LeaseOptions, 'owner' | 'host' | 'identity' | 'now'>,
): Promise<void> {
  const now = await bucket.getTagged(LEASE_KEY);
  if (now?.bytes.equals(mine)) await bucket.putIfUnchanged(LEASE_KEY, releasedBytes(options), 'application/json', now.tag);
}

function describeHolder(holder: LeaseHolder | null, leftMs: number): string {
  const left = `taken over if it is not renewed within ${Math.ceil(Math.max(leftMs, 0) / 1000)} s`;
  if (!holder) return `a lease this version cannot read (damaged, or written by another version); ${left}`;
  return `${holder.owner} (pid ${holder.pid}) on ${holder.host}, since ${holder.since} by its clock; ${left}`;
}

function parseHolder(object: TaggedObject): LeaseHolder | null {
  try {
    return leaseSchema.parse(JSON.parse(object.bytes.toString('utf8')));
  } catch {
    // Damaged, half a write of a store without atomic puts, or another version's: waited out, never taken at once.
    return null;
  }
}

function leaseBytes(options: LeaseOptions, renewals: number, since: Date): Buffer {
  const now = options.now();
  const holder: LeaseHolder = {
    owner: options.owner,
    host: options.host,
    pid: options.identity.pid,
    since: since.toISOString(),
    expires: new Date(now.getTime() + options.ttlMs).toISOString(),
    ttlMs: options.ttlMs,
    renewals,
    holder: options.identity,
  };
  return Buffer.from(`${JSON.stringify(holder, null, 2)}\n`);
}

/**
 * Removes the lease just written on a store found unable to compare-and-swap, if it is still
 * `mine`: there a release written over it would be ignored or refused, and the bucket is refused
 * for every writer anyway (`bucket_unsupported`), so no later writer's lease is at stake.
 */
async function removeOnUnsupported(bucket: Bucket, mine: Buffer): Promise<void> {
  const now = await bucket.getTagged(LEASE_KEY);
  if (now?.bytes.equals(mine)) await bucket.delete([LEASE_KEY]);
}

/** An entity tag no object carries: a write conditioned on it must be refused. */
const WRONG_TAG = '"00000000000000000000000000000000"';

/**
 * Proves on the lease just written, before anything else is written, that the store honours both
 * conditions every writer relies on: a second create (If-None-Match: *) refused, a swap on a wrong
 * tag (If-Match) refused, a swap on the right tag written. Each probe writes other bytes (the
 * lease with more space after it, read the same), so a store that wrote is seen to have.
 * A store that ignores every condition is said in a warning, as before (one writer at a time
 * keeps it whole); one that honours If-None-Match but not If-Match would let a paused writer
 * swap a pointer back, so the run lets the lease go and stops with `bucket_unsupported`.
 * Returns the lease's bytes as the probes left them.
 */
async function probeConditions(bucket: Bucket, mine: Buffer, options: LeaseOptions): Promise<{ held: Buffer; warning: string | null }> {
  const written = options.written;
  const where = `${bucket.description}${LEASE_KEY}`;
  const variant = (spaces: number) => Buffer.concat([mine, Buffer.from(' '.repeat(spaces))]);
  let held = mine;
  if ((await bucket.putIfUnchanged(LEASE_KEY, variant(1), 'application/json', null)) === 'written') {
    // Written where the lease was: the store ignored the condition, or the lease was removed
    // meanwhile (a writer that took it over and let it go). A second create, over what is surely there now, tells.
    held = variant(1);
    written?.(held);
    if ((await bucket.putIfUnchanged(LEASE_KEY, variant(4), 'application/json', null)) === 'written') {
      written?.(variant(4));
      return {
        held: variant(4),
        warning: `${bucket.description} ignores conditional writes (If-None-Match): the writer lock cannot keep two writers apart, so run one writer at a time (docs/operations.md, "One writer at a time")`,
      };
    }
  }
  if ((await bucket.putIfUnchanged(LEASE_KEY, variant(2), 'application/json', WRONG_TAG)) === 'written') {
    written?.(variant(2));
    await removeOnUnsupported(bucket, variant(2)).catch(() => {});
    throw errors.bucketUnsupported(
      where,
      'honours If-None-Match but not If-Match (it wrote over an object whose entity tag the write did not name)',
    );
  }
  const now = await bucket.getTagged(LEASE_KEY);
  if (!now?.bytes.equals(held)) throw errors.bucketLeaseLost(where, 'another writer wrote over it as this run took it');
  // A store that refuses the right tag is named by the adapter (S3Bucket tries the tag's other spelling first).
  const swapped = await bucket.putIfUnchanged(LEASE_KEY, variant(3), 'application/json', now.tag).catch(async (error: unknown) => {
    if (isTariffError(error) && error.code === 'bucket_unsupported') await removeOnUnsupported(bucket, held).catch(() => {});
    throw error;
  });
  if (swapped === 'conflict') throw errors.bucketLeaseLost(where, 'another writer wrote over it as this run took it');
  written?.(variant(3));
  return { held: variant(3), warning: null };
}

/**
 * The lease, renewed at a third of its life by compare-and-swap on the bytes written last. A
 * renewal refused (another writer holds it) or failing for half the lease's life marks it lost:
 * the next `check` stops the writer.
 */
function heldLease(bucket: Bucket, options: LeaseOptions, first: Buffer, warning: string | null): BucketLease {
  const since = options.now();
  const where = `${bucket.description}${LEASE_KEY}`;
  let renewals = 0;
  let confirmedAt = since.getTime();
  let lost: Error | null = null;
  let tag: Promise<string | null> = bucket.getTagged(LEASE_KEY).then((object) => (object?.bytes.equals(first) ? object.tag : null));
  const renew = async (): Promise<string | null> => {
    const was = await tag;
    if (lost) return was;
    if (was === null) {
      lost = errors.bucketLeaseLost(where, 'another writer wrote over it as this run took it');
      return null;
    }
    const next = leaseBytes(options, renewals + 1, since);
    const asked = options.now().getTime();
    if ((await bucket.putIfUnchanged(LEASE_KEY, next, 'application/json', was)) === 'conflict') {
      lost = errors.bucketLeaseLost(where, 'another writer took it over');
      return was;
    }
    renewals += 1;
    confirmedAt = asked;
    const now = await bucket.getTagged(LEASE_KEY);
    return now?.bytes.equals(next) ? now.tag : was;
  };
  const timer = setInterval(
    () => {
      const previous = tag;
      tag = renew().catch(() => previous);
    },
    Math.max(Math.floor(options.ttlMs / 3), 1_000),
  );
  timer.unref();
  return {
    warning,
    async check() {
      const was = await tag;
      if (lost) throw lost;
      const object = await bucket.getTagged(LEASE_KEY).catch(() => undefined);
      if (object === null || (object && object.tag !== was)) {
        lost = errors.bucketLeaseLost(where, object ? 'another writer holds it now' : 'it is gone from the bucket');
        throw lost;
      }
      // Unrenewed for half its life (renewals failing, the process paused): renewed now, or lost.
      if (options.now().getTime() - confirmedAt >= options.ttlMs / 2) {
        const previous = tag;
        tag = renew().catch(() => previous);
        await tag;
        if (lost) throw lost;
        if (options.now().getTime() - confirmedAt >= options.ttlMs / 2)
          throw (lost = errors.bucketLeaseLost(where, 'it could not be renewed within half its life', 'outlived'));
      }
    },
    async release() {
      clearInterval(timer);
      try {
        const was = await tag;
        // Only our own lease is let go, by compare-and-swap on its tag: one taken over meanwhile
        // is the other writer's, and the store refuses this write however late it arrives.
        if (was !== null) await bucket.putIfUnchanged(LEASE_KEY, releasedBytes(options), 'application/json', was);
      } catch {
        // A bucket that fails now has failed the run already, which says so; the lease expires by itself.
      }
    },
  };
}
