#!/usr/bin/env node
// The CLI runs from the TypeScript sources through tsx, so a fresh clone needs no build step
// and operators never run a stale compiled copy.
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every start that its releases after January 2027 will need Node.js 22:
// nine lines in every cron mail and in the service's JSON log. It emits that warning under the
// plain name "Warning", so no listener can tell it apart; the SDK's own switch silences exactly
// it. Every other warning still prints.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// `tariff … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

register();
const { main, cliIo } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv, cliIo(process.env, { stdout: process.stdout, stderr: process.stderr }));
