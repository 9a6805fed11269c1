import { readExpected } from './expected-writes.ts';
import { fixedCore, planned, ROTATION_SLICES, wholeMatrix } from './matrix-plan.ts';
import { A_COMMANDS, B_COMMANDS, RIVAL } from './paused-writers.ts';

const MODES = 3;

/**
 * The matrices' sizes as docs/architecture.md gives them, computed from the expected write lists
 * (test/paused/expected-writes.json) by the plan the matrices run (test/paused/matrix-plan.ts).
 */
export function matrixCountsTable(): string {
  const expected = readExpected();
  const listsOf = (backend: string) => new Map(A_COMMANDS.map((a) => [a as string, expected[backend]?.[a] ?? []]));
  const pairs = A_COMMANDS.flatMap((a) => B_COMMANDS.map((b) => [a as string, b as string] as const));
  const row = (
    name: string,
    lists: Map<string, string[]>,
    casePairs: readonly (readonly [string, string])[],
    rivals: Record<string, string>,
    rotates: boolean,
  ) => {
    const all = wholeMatrix(lists, casePairs);
    const core = fixedCore(lists, rivals);
    const slices = Array.from({ length: ROTATION_SLICES }, (_, slice) => planned(all, core, { whole: false, slice }).length - core.length);
    const each = rotates ? `${core.length} core + ${Math.min(...slices)}–${Math.max(...slices)} of the rotation` : `${all.length} (whole)`;
    return `| ${name} | ${casePairs.length} | ${all.length} | ${each} |`;
  };
  const requests = listsOf('S3 requests');
  const byMode = new Map([...requests].flatMap(([a, list]) => Array.from({ length: MODES }, (_, m) => [`${a} / ${m}`, list] as const)));
  const modeRivals = Object.fromEntries([...byMode.keys()].map((a) => [a, RIVAL[a.split(' / ')[0] as keyof typeof RIVAL]]));
  return [
    '| matrix | pairs or cases | scenarios, whole | every submission |',
    '| --- | --- | --- | --- |',
    row('pause, folder', listsOf('folder'), pairs, RIVAL, false),
    row('pause, Ceph RGW', listsOf('S3'), pairs, RIVAL, true),
    row(
      'lost answers, Ceph RGW',
      byMode,
      [...byMode.keys()].map((a) => [a, modeRivals[a]!] as const),
      modeRivals,
      true,
    ),
  ].join('\n');
}
