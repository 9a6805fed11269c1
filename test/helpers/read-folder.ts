// Run as a process of its own by test/integration/read-sources.test.ts: reads the folder given as
// a build does, then prints what it cost (the peak resident memory) and how it ended, as one JSON line.
import { DEFAULT_SETTINGS } from '../../src/config/settings.ts';
import { readSources } from '../../src/fetch/read-sources.ts';

let error = '';
let documents = 0;
try {
  documents = (await readSources([process.argv[2]!], DEFAULT_SETTINGS, { parse: true })).length;
} catch (failure) {
  error = (failure as Error).message;
}
console.log(JSON.stringify({ error, documents, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
