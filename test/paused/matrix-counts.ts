import { readExpected } from './expected-writes.ts';
import { HOLD_MODES } from '../helpers/s3-store-proxy.ts';
import { fixedCore, planned, ROTATION_SLICES, wholeMatrix, withVariants, type Scenario } from './matrix-plan.ts';
import { A_COMMANDS, B_COMMANDS, RIVAL } from './paused-writers.ts';

/**
 * The matrices' sizes as docs/architecture.md gives them, computed from the expected write lists
 * (test/paused/expected-writes.json) by the plan the matrices run (test/paused/matrix-plan.ts).
 */
export function matrixCountsTable(): string {
  const expected = readExpected();
  const listsOf = (backend: string) => new Map(A_COMMANDS.map((a) => [a as string, expected[backend]?.[a] ?? []]));
  const pairs = A_COMMANDS.flatMap((a) => B_COMMANDS.map((b) => [a as string, b as string] as const));
  const row = (name: string, all: Scenario[], cases: number, core: Scenario[] | null) => {
    if (!core) return `| ${name} | ${cases} | ${all.length} | ${all.length} (whole) |`;
    const slices = Array.from({ length: ROTATION_SLICES }, (_, slice) => planned(all, core, { whole: false, slice }).length - core.length);
    return `| ${name} | ${cases} | ${all.length} | ${core.length} core + ${Math.min(...slices)}–${Math.max(...slices)} of the rotation |`;
  };
  const folder = listsOf('folder');
  const s3 = listsOf('S3');
  const requests = listsOf('S3 requests');
  const byMode = withVariants(requests, RIVAL, HOLD_MODES);
  return [
    '| matrix | pairs or cases | scenarios, whole | every submission |',
    '| --- | --- | --- | --- |',
    row('pause, folder', wholeMatrix(folder, pairs), pairs.length, null),
    row('pause, Ceph RGW', wholeMatrix(s3, pairs), pairs.length, fixedCore(s3, RIVAL)),
    row('lost answers, Ceph RGW', wholeMatrix(byMode.lists, byMode.pairs), byMode.pairs.length, fixedCore(requests, RIVAL, HOLD_MODES)),
  ].join('\n');
}
