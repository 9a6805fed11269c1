import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The files of the heavy proofs: out of the inner loop (npm test), never out of CI. */
const PROOFS = [
  'test/e2e/bucket-writers.test.ts',
  'test/e2e/reader-exits.test.ts',
  'test/e2e/hostile-pdfs.test.ts',
  'test/e2e/pdf-readers.test.ts',
  'test/e2e/damaged-pdfs.test.ts',
  // The real lists read and released with every core busy twelve times over (slows what runs beside it).
  'test/e2e/busy-machine.test.ts',
  'test/integration/pdf-limits.test.ts',
  'test/e2e/backup-leftovers.test.ts',
  // The recovery drills: a machine, a registry and a PostgreSQL cluster lost and brought back.
  'test/e2e/losing-a-machine.test.ts',
  'test/e2e/registry-backup.test.ts',
  'test/e2e/browser*.test.ts',
  'test/e2e/ci-pipelines.test.ts',
];

/**
 * Files with a few tests on the real S3 server among others (test/helpers/s3-step.ts): npm test
 * runs the others, the S3 step these.
 */
const WITH_S3_TESTS = [
  'test/integration/bucket-publish.test.ts',
  'test/e2e/release.test.ts',
  'test/e2e/faults.test.ts',
  'test/e2e/stops.test.ts',
  'test/e2e/bucket-faults.test.ts',
  'test/e2e/registry-backup-guards.test.ts',
];

export default defineConfig({
  test: {
    // A guard, not a wait: with every core busy twelve times over, a test that takes 15 s idle took
    // past a minute (a cluster's initdb, forty runs of a command); a hung test still fails, later.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Every core (vitest leaves one free by default): much of a test's time is a child process's
    // (the service, Chromium), so two files at once keep a 2-core machine busy.
    maxWorkers: Math.max(2, availableParallelism()),
    // Checks every response of the service that a test fetches against docs/openapi.json.
    setupFiles: ['test/setup/openapi-fetch.ts'],
    // Fails the run when a PDF reader or a catalogue builder it started outlives it.
    // Ceph's RADOS Gateway for the S3 tests, started once unless .ci/run started it (test/setup/rgw.ts).
    globalSetup: ['test/setup/no-process-left.ts', 'test/setup/rgw.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: process.env.TARIFF_TEST_REPORT ?? 'test-artifacts/vitest-report.json' }]],
    projects: [
      // The pure core's tests share their processes (no state of their own outlives a test): seconds, not a fork per file.
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      // The integration and end-to-end files keep a process each: their helpers register hooks and open services.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/packed/**', 'test/compat/**', 'test/image/**', 'test/paused/**', 'test/systemd/**', 'test/s3/**', ...PROOFS],
        },
      },
      // The heavy proofs (npm run test:proofs, a step of its own in CI): the racing writers' matrix, the
      // hostile and damaged documents, readers killed by the hundred, backups killed at every moment,
      // the recovery drills, the browser journeys, the pipelines run as a CI runs them.
      {
        extends: true,
        test: { name: 'proofs', include: PROOFS },
      },
      // Every test on the real S3 server, Ceph's RADOS Gateway (npm run test:s3): its own step in CI.
      { extends: true, test: { name: 's3', include: ['test/s3/**/*.test.ts', ...WITH_S3_TESTS], env: { TARIFF_TEST_STEP: 's3' } } },
      // Writers stopped before each of their bucket writes while another runs (npm run test:paused): its own step in CI.
      { extends: true, test: { name: 'paused', include: ['test/paused/**/*.test.ts'], testTimeout: 900_000, hookTimeout: 300_000 } },
      // The packed tarball installed as an operator would (npm run test:packed): once, in CI.
      { extends: true, test: { name: 'packed', include: ['test/packed/**/*.test.ts'], testTimeout: 600_000 } },
      // The previous released version built from git history, installed, and its state taken over (npm run test:compat): once, in CI.
      { extends: true, test: { name: 'compat', include: ['test/compat/**/*.test.ts'], testTimeout: 600_000, hookTimeout: 1_200_000 } },
      // The units of deploy/systemd under a booted systemd (npm run test:systemd): once, in CI; the steps of one system in order.
      {
        extends: true,
        test: {
          name: 'systemd',
          include: ['test/systemd/**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 900_000,
          fileParallelism: false,
          sequence: { concurrent: false },
        },
      },
      // The container image built with podman and run as an operator would (npm run test:image): once, in CI.
      {
        extends: true,
        test: { name: 'image', include: ['test/image/**/*.test.ts'], testTimeout: 600_000, hookTimeout: 900_000, fileParallelism: false },
      },
    ],
  },
});
