import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

/**
 * Processes found by a mark in their environment, which every child inherits: a command's readers
 * are found by it even once they were left under PID 1 (their parent gone), and a test never sees
 * another test's processes.
 */
export interface ProcessMark {
  /** The variable to give the command. */
  env: Record<string, string>;
  /** The live processes carrying the mark whose command line holds `what` (every one without it). */
  pids(what?: string): number[];
  /** The resident memory of every live process carrying the mark, summed, in bytes. */
  rss(): number;
}

export function processMark(): ProcessMark {
  const value = `TARIFF_TEST_MARK=${randomUUID()}`;
  const marked = (what?: string) =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(value)) return false;
          // A zombie has no memory and does no work: it is gone but for its parent's wait.
          if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'))) return false;
          return what === undefined || readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(what);
        } catch {
          return false; // ended while looked at
        }
      })
      .map(Number);
  return {
    env: { TARIFF_TEST_MARK: value.slice('TARIFF_TEST_MARK='.length) },
    pids: marked,
    rss: () =>
      marked().reduce((sum, pid) => {
        try {
          const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
          return sum + Number(kb ?? 0) * 1024;
        } catch {
          return sum;
        }
      }, 0),
  };
}
