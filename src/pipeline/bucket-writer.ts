import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import type { Settings } from '../config/settings.ts';
import { acquireBucketLease, LEASE_KEY, letGoOf, type BucketLease, type LeaseSighting } from '../publish/bucket-lease.ts';
import { errors } from '../errors.ts';
import type { Bucket } from '../storage/bucket.ts';
import { beforeWrites } from '../storage/before-writes.ts';
import { writeFileAtomic } from '../util/durable-write.ts';
import { holderState, thisProcess } from '../util/process-identity.ts';
import { onStop } from '../util/orderly-stop.ts';
import { acquireLock } from '../util/run-lock.ts';
import { markDataDirFormat } from '../config/data-dir-format.ts';
import { builderVersion } from '../util/builder-version.ts';

export interface BucketWriterOptions {
  settings: Settings;
  dataDir: string;
  /** The command, as the lock names its holder to another writer ("publish", "history import"). */
  command: string;
  /** Where a warning goes (a store that ignores conditional writes). */
  warn: (line: string) => void;
  /** A dry run writes nothing, so it takes no lock: it may run beside a writer. */
  dryRun?: boolean;
  /** The machine's clock, which the lease's times are measured on (a test skews it); default the system's. */
  machineNow?: () => Date;
}

/** What a run that writes a bucket is given by its caller (the command names itself). */
export type BucketWriterEdges = Pick<BucketWriterOptions, 'settings' | 'dataDir' | 'warn' | 'machineNow'>;

/**
 * What the data dir remembers of each bucket it writes: the other writer's lease last seen (so a
 * run goes on counting its unrenewed time where the last gave up), and whether the store was last
 * found to ignore conditional writes (so that a cron line says so once, not every 15 minutes).
 */
const WRITER_STATE_FILE = 'bucket-writer.json';
const writerStateSchema = z.record(
  z.string(),
  z.object({
    sighting: z.object({ digest: z.string(), since: z.string() }).nullable().default(null),
    ignoresConditions: z.boolean().default(false),
  }),
);
type WriterState = z.infer<typeof writerStateSchema>;

async function readWriterState(dataDir: string): Promise<WriterState> {
  try {
    return writerStateSchema.parse(JSON.parse(await readFile(join(dataDir, WRITER_STATE_FILE), 'utf8')));
  } catch {
    // Missing or damaged: what it remembered is only a saving (a warning said again, a lease watched anew).
    return {};
  }
}

async function rememberOf(dataDir: string, bucket: Bucket, change: Partial<WriterState[string]>): Promise<void> {
  const state = await readWriterState(dataDir);
  const entry = { sighting: null, ignoresConditions: false, ...state[bucket.description], ...change };
  await writeFileAtomic(join(dataDir, WRITER_STATE_FILE), `${JSON.stringify({ ...state, [bucket.description]: entry }, null, 2)}\n`);
}

/**
 * Runs `work` as the bucket's only writer: under the data dir's lock (runs on this machine), then
 * the bucket's writer lease (runs anywhere). Every command that writes a bucket goes through here,
 * and writes only through the bucket given to `work`: each of its writes first checks that the
 * lease is still this run's, so a writer that lost it stops (`bucket_lease_lost`) before writing.
 * The lease saves work; what keeps the bucket whole is each write's own condition.
 * A store that ignores conditional writes is said once per bucket and data dir (again when that
 * changes, or when `wrote` says the run wrote a release): a cron run with nothing new prints nothing.
 */
export async function asBucketWriter<T>(
  bucket: Bucket,
  options: BucketWriterOptions,
  work: (bucket: Bucket, run: BucketWriterRun) => Promise<T>,
  wrote: (result: T) => boolean = () => false,
): Promise<T> {
  const retentionMs = options.settings.retentionHours * 3_600_000;
  if (options.dryRun) return work(bucket, { storeNow: () => (options.machineNow ?? (() => new Date()))(), retentionMs });
  const { settings, dataDir } = options;
  const locked = await acquireLock(dataDir, 'release', settings.lockStaleSeconds * 1000);
  await markDataDirFormat(dataDir, `tariff ${builderVersion()}`);
  // Let go once, by whichever comes first: the run's end or a stop on a signal.
  let unlocking: Promise<void> | null = null;
  const unlock = () => (unlocking ??= locked());
  const lockLetGo = onStop({ what: `the lock of ${dataDir} let go`, undo: unlock });
  try {
    const remembered = (await readWriterState(dataDir))[bucket.description];
    // A stop on a signal lets the bucket go at once, from the moment the lease is written, so the
    // next writer need not wait out its life; during the taking it waits for it (its write may be
    // under way), within the stop's grace.
    const taking: { written: Buffer | null; acquiring: Promise<BucketLease | null> | null } = { written: null, acquiring: null };
    const who = {
      owner: `tariff ${options.command}`,
      host: hostname(),
      identity: thisProcess(),
      now: options.machineNow ?? (() => new Date()),
    };
    const leaseLetGo = onStop({
      what: `the writer lease of ${bucket.description} let go`,
      undo: async () => {
        const held = await taking.acquiring;
        if (held) await held.release();
        else if (taking.written) await letGoOf(bucket, taking.written, who);
      },
    });
    const acquiring = acquireBucketLease(bucket, {
      ...who,
      holderState,
      ttlMs: settings.lockStaleSeconds * 1000,
      waitMs: settings.bucketLockWaitSeconds * 1000,
      sleep: (ms) => sleep(ms),
      written: (mine) => (taking.written = mine),
      sightings: {
        read: async () => remembered?.sighting ?? null,
        write: (sighting: LeaseSighting | null) => rememberOf(dataDir, bucket, { sighting }),
      },
    });
    taking.acquiring = acquiring.catch(() => null);
    const lease = await acquiring.catch((error: unknown) => {
      leaseLetGo();
      throw error;
    });
    try {
      const ignoring = lease.warning !== null;
      const news = ignoring !== (remembered?.ignoresConditions ?? false);
      if (news) await rememberOf(dataDir, bucket, { ignoresConditions: ignoring });
      if (lease.warning && news) options.warn(lease.warning);
      // Under the lease no writer is writing: a folder's temporaries older than an hour are a killed one's.
      await bucket.removeLeftovers?.();
      const age = runAge();
      // The store's own clock, read once from the lease it wrote: marks' ages are measured on it, never on this machine's.
      const leaseWritten = (await bucket.modified(LEASE_KEY))?.getTime() ?? (options.machineNow?.() ?? new Date()).getTime();
      const since = performance.now();
      const storeNow = () => new Date(leaseWritten + (performance.now() - since));
      // What the run reports is checked by the run itself against the bucket (publish/bucket-releases.ts,
      // confirmCurrent), not by the lease: a write that landed counts, whoever holds the lease now.
      const result = await work(leased(bucket, lease, age), { storeNow, retentionMs });
      if (lease.warning && !news && wrote(result)) options.warn(lease.warning);
      return result;
    } finally {
      leaseLetGo();
      await lease.release();
    }
  } finally {
    lockLetGo();
    await unlock();
  }
}

/** Two clocks from now on: a pause (SIGSTOP) moves the monotonic one, a suspended machine the wall one. */
function runAge(): () => number {
  const began = { monotonic: performance.now(), wall: Date.now() };
  return () => Math.max(performance.now() - began.monotonic, Date.now() - began.wall);
}

/**
 * The bucket as a writer that takes no lease writes it (a registry backup, which runs beside
 * releases): its writes stop once the run is older than MAX_WRITER_RUN_MS, as a lease holder's do.
 */
export function writesOfOneRun(bucket: Bucket): Bucket {
  return leased(bucket, null, runAge());
}

/**
 * The longest a writer goes on writing after it took the bucket, on this machine's monotonic
 * clock (which counts a paused process's time) and its wall clock alike. Deferred deletion waits
 * longer than this (the retention), so a decision a writer made before a pause is never acted on
 * after another writer could have changed what it was about.
 */
export const MAX_WRITER_RUN_MS = 60 * 60_000;

/** What a run writing the bucket is given besides the bucket. */
export interface BucketWriterRun {
  /** The store's time now: when it wrote this run's lease, moved on by this machine's monotonic clock. */
  storeNow(): Date;
  /** How long a mark waits before its deletion (TARIFF_RETENTION_HOURS). */
  retentionMs: number;
}

/**
 * The bucket as a lease holder writes it: every write preceded by the check that the lease is
 * still held and that the run is younger than MAX_WRITER_RUN_MS. These save work and make reports
 * true; safety rests on the writes themselves (create-once, compare-and-swap, deferred deletion).
 */
function leased(bucket: Bucket, lease: BucketLease | null, age: () => number): Bucket {
  const guard = async () => {
    if (age() >= MAX_WRITER_RUN_MS)
      throw errors.bucketLeaseLost(
        bucket.description,
        `this run took the bucket ${Math.round(age() / 60_000)} min ago (paused, or far too slow): a write this late could undo another writer's`,
        'outlived',
      );
    await lease?.check();
  };
  return beforeWrites(bucket, guard);
}
