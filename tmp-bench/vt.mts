import { verifyRelease } from '../src/release/verify-release.ts';
const t = performance.now(); const r = await verifyRelease('/tmp/tmp.rQfKQ38QTI/out'); console.log('verify cold', (performance.now()-t).toFixed(0), r.ok);
for (let i = 0; i < 3; i++) { const t = performance.now(); await verifyRelease('/tmp/tmp.rQfKQ38QTI/out'); console.log('verify', (performance.now()-t).toFixed(0)); }
