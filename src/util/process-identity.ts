import { readFileSync, readlinkSync } from 'node:fs';

/**
 * What tells one process from every other, for a lock or lease to name its holder: the kernel's
 * boot, the PID namespace, the pid in it and the moment the process started. A host name is no
 * identity (two containers share one; a name can be set to anything), and a pid alone is reused.
 * Null fields: this system does not say (not Linux, or a /proc that is not this namespace's).
 */
export interface ProcessIdentity {
  /** The kernel boot's random id (/proc/sys/kernel/random/boot_id): another boot, another machine, or a reboot. */
  boot: string | null;
  /** The PID namespace (/proc/self/ns/pid, "pid:[4026531836]"): two containers of one kernel differ here. */
  pidNamespace: string | null;
  pid: number;
  /** When the process started, in clock ticks since boot (/proc/<pid>/stat, field 22): a reused pid differs here. */
  started: string | null;
}

/** Whether a recorded holder runs: provably not (`gone`), yes (`running`), or not provable from here (`unknown`). */
export type HolderState = 'gone' | 'running' | 'unknown';

const readOr = (read: () => string): string | null => {
  try {
    return read().trim() || null;
  } catch {
    return null;
  }
};

/**
 * The start time of `pid` as this /proc shows it, or null when no such process is there or it has
 * ended and waits only to be reaped (a zombie, state Z: an orphan under a PID 1 that reaps late).
 */
function startTicks(pid: number): string | null {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : [];
  if (fields[0] === 'Z') return null;
  return fields[19] ?? null;
}

let mine: ProcessIdentity | undefined;

/** This process's identity (read once). */
export function thisProcess(): ProcessIdentity {
  if (mine) return mine;
  const pid = process.pid;
  // A /proc mounted for another PID namespace (`unshare -p` without its own /proc) shows other
  // processes under our pids: then nothing read there can identify a process of ours.
  const ownProc = readOr(() => readlinkSync('/proc/self')) === String(pid);
  mine = {
    boot: readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidNamespace: ownProc ? readOr(() => readlinkSync('/proc/self/ns/pid')) : null,
    pid,
    started: ownProc ? startTicks(pid) : null,
  };
  return mine;
}

/**
 * Whether the process a lock names still runs. Gone only when it is provably of this boot and this
 * PID namespace and no process with its pid and start time is there; a holder of another machine,
 * container or boot, or named without its identity (another version, a damaged record), is unknown:
 * its lock is then waited out, never taken at once.
 */
export function holderState(holder: Partial<ProcessIdentity> | null | undefined, me: ProcessIdentity = thisProcess()): HolderState {
  if (!holder || !me.boot || !me.pidNamespace || !holder.boot || !holder.pidNamespace || !holder.started) return 'unknown';
  if (holder.boot !== me.boot || holder.pidNamespace !== me.pidNamespace || typeof holder.pid !== 'number') return 'unknown';
  if (holder.pid === me.pid) return holder.started === me.started ? 'running' : 'gone';
  return startTicks(holder.pid) === holder.started ? 'running' : 'gone';
}
