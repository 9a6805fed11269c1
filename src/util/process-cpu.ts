import { readFileSync } from 'node:fs';

/**
 * Linux counts a process's processor time in clock ticks of USER_HZ, which the kernel fixes at 100
 * on every architecture it exports to user space (`getconf CLK_TCK`), whatever its own HZ.
 */
const MS_PER_TICK = 10;

/**
 * The processor time `pid` has used so far (user and system, its threads included), in ms, as
 * /proc/<pid>/stat says; null where the system does not say (not Linux, or the process is gone).
 * A process's own processor time is what its work costs, whatever else the machine runs: a limit
 * counted in it holds the same on a busy machine as on an idle one, which the wall clock does not.
 */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * MS_PER_TICK : null;
}
