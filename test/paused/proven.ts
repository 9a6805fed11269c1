import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROTATION_SLICES } from './matrix-plan.ts';

/**
 * When the paused matrices on Ceph run whole (test/paused/matrix-plan.ts): when asked
 * (TARIFF_TEST_PAUSED=whole), or when the code they prove differs from what they last proved
 * whole. That code is these folders as committed; `npm run test:paused:whole` runs everything and,
 * when it passes, records their fingerprint in test/paused/proven.json, so that a submission
 * touching none of them runs the core and the rotation, and one touching any runs everything.
 */
export const PROVEN_PATHS = ['src/storage', 'src/publish', 'src/history', 'test/paused'] as const;
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const STAMP = 'test/paused/proven.json';

const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** The fingerprint of PROVEN_PATHS as committed at HEAD (the stamp itself left out); null without git. */
export function provenFingerprint(): string | null {
  try {
    const listing = git('ls-tree', '-r', 'HEAD', '--', ...PROVEN_PATHS)
      .split('\n')
      .filter((line) => line && !line.endsWith(`\t${STAMP}`))
      .join('\n');
    return createHash('sha256').update(listing).digest('hex');
  } catch {
    return null;
  }
}

/** The rotation's slice for this commit: the commits on HEAD (one more each submission), or its hash where the clone is shallow. */
export function rotationIndex(): number {
  try {
    if (git('rev-parse', '--is-shallow-repository').trim() !== 'true') return Number(git('rev-list', '--count', 'HEAD').trim());
    return parseInt(git('rev-parse', 'HEAD').trim().slice(0, 8), 16);
  } catch {
    return 0;
  }
}

/** Whether this run tries the whole matrix on Ceph, and why. */
export function matrixChoice(env: NodeJS.ProcessEnv = process.env): { whole: boolean; slice: number; why: string } {
  const slice = rotationIndex();
  if (env.TARIFF_TEST_PAUSED === 'whole') return { whole: true, slice, why: 'TARIFF_TEST_PAUSED=whole' };
  const now = provenFingerprint();
  const stamp = existsSync(join(REPO, STAMP)) ? (JSON.parse(readFileSync(join(REPO, STAMP), 'utf8')) as { fingerprint?: string }) : {};
  if (now === null) return { whole: true, slice, why: 'no git history to compare with what was proven' };
  if (stamp.fingerprint !== now) return { whole: true, slice, why: `${PROVEN_PATHS.join(', ')} changed since the matrices last ran whole` };
  return { whole: false, slice, why: `the core and slice ${slice % ROTATION_SLICES} of ${ROTATION_SLICES} of the rotation` };
}

/** Records HEAD's fingerprint as proven (after a whole run passed); refuses uncommitted changes to what it names. */
export function recordProven(): string {
  const dirty = git('status', '--porcelain', '--', ...PROVEN_PATHS)
    .split('\n')
    .filter((line) => line && !line.endsWith(STAMP));
  if (dirty.length > 0) throw new Error(`commit these first, the stamp names HEAD: ${dirty.join(', ')}`);
  const fingerprint = provenFingerprint();
  if (!fingerprint) throw new Error('no git history here');
  const head = git('rev-parse', 'HEAD').trim();
  writeFileSync(join(REPO, STAMP), `${JSON.stringify({ fingerprint, provenAt: head }, null, 2)}\n`);
  return fingerprint;
}

// `node test/paused/proven.ts record`, after a whole run passed (npm run test:paused:whole).
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'record')
  console.log(`test/paused/proven.json: the matrices proven whole at ${recordProven()}`);
