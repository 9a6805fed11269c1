/**
 * The Node.js flags a service process runs with. V8 grows its young generation with the rate of
 * allocation, up to 32 MB a semi-space here: a service answering pages at a steady rate kept
 * 64 MB of it committed for good. Bounded at 8 MB, the service's resident memory under bench:site
 * stays under 200 MB with the catalogue loaded, at no cost to its latency (docs/architecture.md,
 * "Memory and start-up"). Builds keep V8's defaults: they allocate in bursts, and end.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

/** Whether this process already runs with the service's flags (it was started, or replaced itself, with them). */
export function hasServiceFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return SERVICE_NODE_FLAGS.every((flag) => execArgv.includes(flag));
}
