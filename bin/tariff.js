#!/usr/bin/env node
// The CLI runs from the TypeScript sources through tsx, so a fresh clone needs no build step
// and operators never run a stale compiled copy.
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every start that future versions will need a newer Node.js: noise in
// every cron mail. Other warnings still print.
const printWarnings = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'NodeVersionSupportWarning') for (const listener of printWarnings) listener(warning);
});

// `tariff … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
