/**
 * The Node.js flags a service process runs with (docs/architecture.md, "Memory and start-up").
 * Builds keep V8's defaults: they allocate in bursts, and end.
 *
 * - V8 grows its young generation with the rate of allocation, up to 32 MB a semi-space here: a
 *   service answering at a steady rate kept 64 MB of it committed for good. Bounded at 8 MB.
 * - V8 lets the old generation grow to a multiple of what lives in it, up to four times, before
 *   its next full collection: under bench:serve's load a worker's heap grew to 63 MB for some
 *   25 MB alive. At one and a half times, each worker holds about 150 MB rather than 150–180, at no
 *   measurable cost to the requests answered (bench:serve, bench:site).
 *
 * Both are V8's own flags: a runtime that no longer knew one would refuse to start, which
 * test/integration/command-start.test.ts checks for the bundled one.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

/** Whether this process already runs with the service's flags (it was started, or replaced itself, with them). */
export function hasServiceFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return SERVICE_NODE_FLAGS.every((flag) => execArgv.includes(flag));
}
