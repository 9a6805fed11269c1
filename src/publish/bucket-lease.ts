import * as z from 'zod';
import { errors } from '../errors.ts';
import type { Bucket, TaggedObject } from '../storage/bucket.ts';

/** The object in the bucket that says who writes it now: one writer at a time, across machines. */
export const LEASE_KEY = 'writer-lock.json';

const leaseSchema = z.object({
  /** The command ("tariff publish"). */
  owner: z.string(),
  host: z.string(),
  pid: z.number().int(),
  since: z.string(),
  /** Renewed while the writer runs; past it, a writer that died is taken over. */
  expires: z.string(),
});
export type LeaseHolder = z.infer<typeof leaseSchema>;

export interface LeaseOptions {
  owner: string;
  host: string;
  pid: number;
  /** Whether a holder is known to be gone before its lease expires (a process of this machine that no longer runs). */
  isGone: (holder: LeaseHolder) => boolean;
  now: () => Date;
  /** How long the lease holds without renewal: a killed writer blocks the bucket this long at most. */
  ttlMs: number;
  /** How long to wait for another writer to finish before giving up, naming it. */
  waitMs: number;
  /** Waits between tries (a test passes one that moves its clock). */
  sleep: (ms: number) => Promise<void>;
}

/** A lease held on a bucket: renewed in the background until released. */
export interface BucketLease {
  /**
   * Said once when the store wrote over an existing object although told not to (it ignores
   * conditional writes): the lease then keeps no other writer out.
   */
  readonly warning: string | null;
  /** Lets the bucket go; it is no longer renewed. */
  release(): Promise<void>;
}

/** Waits between tries: short at first (a publication's bucket work takes a second or two), then up to a second. */
const FIRST_RETRY_MS = 20;
const MAX_RETRY_MS = 1_000;

/**
 * Takes the bucket's writer lease: the lease object created only if absent (If-None-Match: *), or
 * taken over from a holder whose lease expired (If-Match on what was read), by compare-and-swap,
 * so two writers never both hold it. While another holds it, waits up to `waitMs`, then stops with
 * `bucket_busy` naming the holder. The store is then checked once: a second create of the lease
 * must be refused, else the run says that the store ignores conditions.
 */
export async function acquireBucketLease(bucket: Bucket, options: LeaseOptions): Promise<BucketLease> {
  const deadline = options.now().getTime() + options.waitMs;
  for (let wait = FIRST_RETRY_MS; ; wait = Math.min(wait * 2, MAX_RETRY_MS)) {
    const existing = await bucket.getTagged(LEASE_KEY);
    const holder = existing ? parseHolder(existing) : null;
    const free = !existing || !holder || Date.parse(holder.expires) <= options.now().getTime() || options.isGone(holder);
    if (free) {
      const mine = leaseBytes(options);
      if ((await bucket.putIfUnchanged(LEASE_KEY, mine, 'application/json', existing?.tag ?? null)) === 'written')
        return heldLease(bucket, options, mine, await ignoresConditions(bucket, mine));
      continue;
    }
    if (options.now().getTime() >= deadline) throw errors.bucketBusy(`${bucket.description}${LEASE_KEY}`, describeHolder(holder));
    await options.sleep(wait);
  }
}

const describeHolder = (holder: LeaseHolder) =>
  `${holder.owner} (pid ${holder.pid}) on ${holder.host}, since ${holder.since}, until ${holder.expires}`;

function parseHolder(object: TaggedObject): LeaseHolder | null {
  try {
    return leaseSchema.parse(JSON.parse(object.bytes.toString('utf8')));
  } catch {
    // Not a lease (damaged, or half a write of a store without atomic puts): free to take over.
    return null;
  }
}

function leaseBytes(options: LeaseOptions, since = options.now()): Buffer {
  const holder: LeaseHolder = {
    owner: options.owner,
    host: options.host,
    pid: options.pid,
    since: since.toISOString(),
    expires: new Date(options.now().getTime() + options.ttlMs).toISOString(),
  };
  return Buffer.from(`${JSON.stringify(holder, null, 2)}\n`);
}

/** Whether a store wrote over the existing lease when told to write only if absent. */
async function ignoresConditions(bucket: Bucket, mine: Buffer): Promise<string | null> {
  if ((await bucket.putIfUnchanged(LEASE_KEY, mine, 'application/json', null)) === 'conflict') return null;
  return `${bucket.description} ignores conditional writes (If-None-Match): the writer lock cannot keep two writers apart, so run one writer at a time (docs/operations.md, "One writer at a time")`;
}

/** The lease, renewed at a third of its life by compare-and-swap on the bytes written last. */
function heldLease(bucket: Bucket, options: LeaseOptions, first: Buffer, warning: string | null): BucketLease {
  const since = options.now();
  let tag: Promise<string | null> = bucket.getTagged(LEASE_KEY).then((object) => (object?.bytes.equals(first) ? object.tag : null));
  const renew = async () => {
    const was = await tag;
    if (was === null) return null;
    const next = leaseBytes(options, since);
    if ((await bucket.putIfUnchanged(LEASE_KEY, next, 'application/json', was)) === 'conflict') return null;
    return (await bucket.getTagged(LEASE_KEY))?.tag ?? null;
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
    async release() {
      clearInterval(timer);
      try {
        const was = await tag;
        const now = await bucket.getTagged(LEASE_KEY);
        // Only our own lease is removed: one taken over meanwhile is the other writer's.
        if (was !== null && now?.tag === was) await bucket.delete([LEASE_KEY]);
      } catch {
        // A bucket that fails now has failed the run already, which says so; the lease expires by itself.
      }
    },
  };
}
