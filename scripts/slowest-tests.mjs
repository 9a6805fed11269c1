#!/usr/bin/env node
// The suite's slowest files and tests, from a vitest JSON report (npm run test:slowest runs the
// inner loop's projects and writes one; or give a report's path): where a test's time goes, so
// the inner loop stays one a developer waits for gladly (docs/testing.md).
//
//   node scripts/slowest-tests.mjs [report.json] [--top N]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 15;
const file = args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--top') ?? 'test-artifacts/vitest-slowest-report.json';
const report = JSON.parse(readFileSync(file, 'utf8'));

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const files = (report.testResults ?? []).map((suite) => ({
  name: relative(process.cwd(), suite.name),
  ms: (suite.endTime ?? 0) - (suite.startTime ?? 0),
  tests: (suite.assertionResults ?? []).map((test) => ({ name: test.fullName ?? test.title, ms: test.duration ?? 0 })),
}));
const total = files.reduce((sum, each) => sum + each.ms, 0);
const wall =
  Math.max(...files.map((each) => each.ms), 0) && (report.testResults ?? []).length
    ? Math.max(...report.testResults.map((s) => s.endTime ?? 0)) - Math.min(...report.testResults.map((s) => s.startTime ?? Infinity))
    : 0;

console.log(`${files.length} files, ${report.numTotalTests} tests; ${seconds(total)} of file time over ${seconds(wall)} of wall time`);
console.log(`\nSlowest files (their share of the file time):`);
for (const each of [...files].sort((a, b) => b.ms - a.ms).slice(0, top))
  console.log(`  ${seconds(each.ms).padStart(8)}  ${((each.ms / total) * 100).toFixed(1).padStart(5)} %  ${each.name}`);
console.log(`\nSlowest tests:`);
for (const each of files
  .flatMap((suite) => suite.tests.map((test) => ({ ...test, file: suite.name })))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, top))
  console.log(`  ${seconds(each.ms).padStart(8)}  ${each.file} > ${each.name}`);
