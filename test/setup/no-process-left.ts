import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The suite fails when a process of the product outlives it: a PDF reader or a catalogue builder
 * that this checkout started during the run and that is still alive 3 s after the last test (each
 * ends with its command, whatever the document: src/source/pdf/page-runs-worker.mjs). Processes of
 * other checkouts and of earlier runs are not this run's.
 */
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PRODUCT_CHILDREN = /page-runs-worker|catalogue-builder|structure-checker/;

/** Clock ticks since boot when the run began: processes started before are not this run's. */
let began = 0;

const ticksSinceBoot = () => Math.floor(Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 100);

function leftOver(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (!PRODUCT_CHILDREN.test(command) || !command.includes(REPO)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // Field 22 of stat (20 after the name and state): the start time in clock ticks.
      if (Number(stat[19]) < began || stat[0] === 'Z') continue;
      found.push(`${pid} (parent ${stat[1]}): ${command.trim()}`);
    } catch {
      // Ended while it was read.
    }
  }
  return found;
}

export function setup(): () => Promise<void> {
  began = ticksSinceBoot();
  return async () => {
    // A reader ends within its parent watch's period (200 ms) of its command: 3 s is plenty.
    for (let tries = 0; tries < 30 && leftOver().length > 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const left = leftOver();
    if (left.length === 0) return;
    // vitest reports a teardown's error but exits 0 all the same: the exit status is set here.
    process.stderr.write(`processes of the product outlived the suite:\n${left.join('\n')}\n`);
    process.exitCode = 1;
    for (const line of left) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
  };
}
