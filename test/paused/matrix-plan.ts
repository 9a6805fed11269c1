/**
 * Which scenarios of the paused matrices a run tries (docs/architecture.md, "What every submission
 * proves"). Pure: the recorded write lists in, the scenarios out, so that the counts the docs give
 * are the ones this computes (test/paused/matrix-plan.test.ts).
 *
 * - The folder matrix runs whole every time: every pair, every moment of A's write list.
 * - On Ceph (pause and lost-answer matrices) every submission runs the fixed core: for each
 *   command A against the writer that contends for what it writes (its rival), the first moment
 *   of each distinct class of write it makes (what is written where: `writeClass`), and its last;
 *   plus the named cases. The rest is cut into `ROTATION_SLICES` slices by a fixed order, and a
 *   submission runs one of them, the next one the next: the whole matrix within that many
 *   submissions. It runs whole when asked (TARIFF_TEST_PAUSED=whole), or when the code it proves
 *   has changed since it last ran whole (test/paused/proven.ts).
 */

/** How many submissions the rotation takes to cover the whole matrix on Ceph. */
export const ROTATION_SLICES = 4;

export interface Scenario {
  a: string;
  b: string;
  /** A's write (or write request) it is stopped at: 1 is its first. */
  moment: number;
}

/**
 * A write line as a class: what is written where, without the names a run makes up (digests,
 * times, random suffixes, versions), so that a command's list reads the same run after run.
 */
export function writeClass(line: string): string {
  return line
    .replace(/\b\d{8}\.\d+\b/g, 'V')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}([-.]\d+)?Z/g, '#')
    .replace(/[0-9a-f]{8,}/g, '#');
}

/** Every scenario of these pairs: each moment of A's list. */
export function wholeMatrix(lists: ReadonlyMap<string, readonly string[]>, pairs: readonly (readonly [string, string])[]): Scenario[] {
  return pairs.flatMap(([a, b]) => (lists.get(a) ?? []).map((_, i) => ({ a, b, moment: i + 1 })));
}

/**
 * The fixed core: for each A against its rival, the first moment of each class of write, and the
 * last. With `variants` (the lost-answer matrix's ways of holding a request), each of those
 * moments is tried one way, the ways taken in turn (scenario A `${a} / ${variant}`): every class
 * of write is proven each submission, the other ways by the rotation.
 */
export function fixedCore(
  lists: ReadonlyMap<string, readonly string[]>,
  rival: Readonly<Record<string, string>>,
  variants: readonly string[] = [],
): Scenario[] {
  const core: Scenario[] = [];
  for (const [a, list] of lists) {
    const b = rival[a];
    if (b === undefined) continue;
    const seen = new Set<string>();
    list.forEach((line, i) => {
      const kind = writeClass(line);
      if (seen.has(kind) && i !== list.length - 1) return;
      seen.add(kind);
      core.push({ a: variants.length > 0 ? variantOf(a, variants[seen.size % variants.length]!) : a, b, moment: i + 1 });
    });
  }
  return core;
}

/** A scenario's A when each variant of `a` is a pair of its own (`publish / answer lost`). */
export const variantOf = (a: string, variant: string) => `${a} / ${variant}`;

/** Each command's list under each variant, and the pairs they make with each command's rival. */
export function withVariants(
  lists: ReadonlyMap<string, readonly string[]>,
  rival: Readonly<Record<string, string>>,
  variants: readonly string[],
): { lists: Map<string, readonly string[]>; pairs: (readonly [string, string])[] } {
  const entries = [...lists].flatMap(([a, list]) => variants.map((variant) => [variantOf(a, variant), list, rival[a]!] as const));
  return { lists: new Map(entries.map(([a, list]) => [a, list])), pairs: entries.map(([a, , b]) => [a, b] as const) };
}

const keyOf = (scenario: Scenario) => `${scenario.a}\u0000${scenario.b}\u0000${scenario.moment}`;

/**
 * What a run on Ceph tries: the core, and the rotation's slice `slice` of the rest (scenario i of
 * the rest in the matrix's order belongs to slice i mod ROTATION_SLICES); everything when whole.
 */
export function planned(all: readonly Scenario[], core: readonly Scenario[], choice: { whole: boolean; slice: number }): Scenario[] {
  if (choice.whole) return [...all];
  const inCore = new Set(core.map(keyOf));
  const rest = all.filter((scenario) => !inCore.has(keyOf(scenario)));
  const slice = ((choice.slice % ROTATION_SLICES) + ROTATION_SLICES) % ROTATION_SLICES;
  const chosen = new Set([...core.map(keyOf), ...rest.filter((_, i) => i % ROTATION_SLICES === slice).map(keyOf)]);
  return all.filter((scenario) => chosen.has(keyOf(scenario)));
}

/** The moments of pair (a, b) among `scenarios`, in order. */
export function momentsOf(scenarios: readonly Scenario[], a: string, b: string): number[] {
  return scenarios.filter((scenario) => scenario.a === a && scenario.b === b).map((scenario) => scenario.moment);
}
