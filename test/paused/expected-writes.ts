import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPO } from '../helpers/run-cli.ts';
import { writeClass } from './matrix-plan.ts';

/**
 * Each command's writes as the matrices record them when it runs alone (test/paused/expected-writes.json),
 * by backend: what is written where, in order. A change that adds, drops or reorders a write fails
 * here, so the matrices' moments never change unseen; TARIFF_TEST_PAUSED_RECORD=1 writes the lists
 * recorded instead (run the files one at a time then: `--no-file-parallelism`).
 */
export const EXPECTED_FILE = join(REPO, 'test/paused/expected-writes.json');

export type ExpectedWrites = Record<string, Record<string, string[]>>;

export function readExpected(): ExpectedWrites {
  return existsSync(EXPECTED_FILE) ? (JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')) as ExpectedWrites) : {};
}

export function expectedWrites(backend: string, command: string, recorded: readonly string[]): void {
  const classes = recorded.map(writeClass);
  if (process.env.TARIFF_TEST_PAUSED_RECORD === '1') {
    const all = readExpected();
    all[backend] = { ...all[backend], [command]: classes };
    const sorted = Object.fromEntries(
      Object.keys(all)
        .sort()
        .map((name) => [name, all[name]!]),
    );
    writeFileSync(EXPECTED_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
    return;
  }
  expect(classes, `${backend}: ${command}'s writes (TARIFF_TEST_PAUSED_RECORD=1 records them anew)`).toEqual(
    readExpected()[backend]?.[command],
  );
}
