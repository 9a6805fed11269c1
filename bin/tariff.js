#!/usr/bin/env node
// The CLI runs from the TypeScript sources through tsx, so a fresh clone needs no build step
// and operators never run a stale compiled copy.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
