import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every core (vitest leaves one free by default): much of a test's time is a child process's
    // (the service, Chromium), so two files at once keep a 2-core machine busy.
    maxWorkers: Math.max(2, availableParallelism()),
    // Checks every response of the service that a test fetches against docs/openapi.json.
    setupFiles: ['test/setup/openapi-fetch.ts'],
    // Tests that load the S3 client in-process silence its Node.js version notice as bin/tariff.js
    // does for the command (the cron test checks the command's own, with an environment of its own).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest-report.json' }]],
    projects: [
      // The pure core's tests share their processes (no state of their own outlives a test): seconds, not a fork per file.
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      // The integration and end-to-end files keep a process each: their helpers register hooks and open services.
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'] } },
    ],
  },
});
