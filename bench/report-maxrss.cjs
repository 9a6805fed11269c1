// Preloaded into a benchmarked process (NODE_OPTIONS=--require): its peak memory, on stderr, at exit.
process.on('exit', () => process.stderr.write(`\nbench-maxrss-kb ${process.resourceUsage().maxRSS}\n`));
