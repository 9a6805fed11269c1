import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/run-cli.ts';
import { matrixCountsTable } from '../paused/matrix-counts.ts';
import { fixedCore, momentsOf, planned, ROTATION_SLICES, wholeMatrix, writeClass } from '../paused/matrix-plan.ts';

const lists = new Map([
  [
    'publish',
    [
      'swap writer-lock.json',
      'swap writer-lock.json',
      'create releases/20261101.3/dataset.json.gz',
      'create releases/20261101.3/dataset.sqlite.gz',
      'swap current.json',
      'delete writer-lock.json',
    ],
  ],
  ['rollback', ['swap writer-lock.json', 'swap current.json', 'delete writer-lock.json']],
]);
const pairs = ['publish', 'rollback'].flatMap((a) => ['publish', 'rollback', 'publish-next'].map((b) => [a, b] as const));
const rival = { publish: 'publish-next', rollback: 'publish-next' };

describe('the paused matrices’ plan (test/paused/matrix-plan.ts)', () => {
  it('names a write by what is written where, not by the names a run makes up', () => {
    expect(writeClass('create releases/20261101.3/dataset.json.gz')).toBe('create releases/V/dataset.json.gz');
    expect(writeClass(`create history/head-${'ab12'.repeat(16)}-b7b2f9f1.json.gz`)).toBe('create history/head-#-#.json.gz');
    expect(writeClass('create backups/registry/registry-2026-12-02T01-36-58-601Z.json')).toBe('create backups/registry/registry-#.json');
  });

  it('puts in the core the first write of each class and the last, against the rival alone', () => {
    expect(fixedCore(lists, rival)).toEqual([
      { a: 'publish', b: 'publish-next', moment: 1 },
      { a: 'publish', b: 'publish-next', moment: 3 },
      { a: 'publish', b: 'publish-next', moment: 4 },
      { a: 'publish', b: 'publish-next', moment: 5 },
      { a: 'publish', b: 'publish-next', moment: 6 },
      { a: 'rollback', b: 'publish-next', moment: 1 },
      { a: 'rollback', b: 'publish-next', moment: 2 },
      { a: 'rollback', b: 'publish-next', moment: 3 },
    ]);
  });

  it('spreads the ways of holding a request over the core’s moments, one way each', () => {
    expect(fixedCore(new Map([['rollback', lists.get('rollback')!]]), rival, ['held', 'lost'])).toEqual([
      { a: 'rollback / lost', b: 'publish-next', moment: 1 },
      { a: 'rollback / held', b: 'publish-next', moment: 2 },
      { a: 'rollback / lost', b: 'publish-next', moment: 3 },
    ]);
  });

  it('covers the whole matrix in ROTATION_SLICES submissions, each scenario once beside the core', () => {
    const all = wholeMatrix(lists, pairs);
    const core = fixedCore(lists, rival);
    const key = (s: { a: string; b: string; moment: number }) => `${s.a} ${s.b} ${s.moment}`;
    const coreKeys = new Set(core.map(key));
    const seen = new Map<string, number>();
    for (let slice = 0; slice < ROTATION_SLICES; slice += 1)
      for (const scenario of planned(all, core, { whole: false, slice }))
        if (!coreKeys.has(key(scenario))) seen.set(key(scenario), (seen.get(key(scenario)) ?? 0) + 1);
    expect(seen.size + core.length).toBe(all.length);
    expect([...seen.values()].every((times) => times === 1)).toBe(true);
    // Any submission number picks a slice, negative or past the count included.
    expect(planned(all, core, { whole: false, slice: 553 })).toEqual(planned(all, core, { whole: false, slice: 553 % ROTATION_SLICES }));
    expect(planned(all, core, { whole: true, slice: 0 })).toEqual(all);
    expect(momentsOf(all, 'rollback', 'publish')).toEqual([1, 2, 3]);
  });

  it('gives docs/architecture.md the counts the expected write lists make', () => {
    // Compared as Markdown reads it: a table's padding (prettier's) is not its content.
    const plain = (text: string) => text.replace(/ +/g, ' ').replace(/-{3,}/g, '---');
    const docs = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');
    const table = matrixCountsTable();
    expect(plain(docs), `docs/architecture.md should hold this table:\n${table}`).toContain(plain(table));
  });
});
