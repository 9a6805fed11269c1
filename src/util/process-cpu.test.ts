import { describe, expect, it } from 'vitest';
import { processCpuMs } from './process-cpu.ts';

describe('processCpuMs', () => {
  it("counts this process's own processor time, growing with its work", () => {
    const before = processCpuMs(process.pid);
    expect(before).not.toBeNull();
    // Work until the count moves (a tick is 10 ms), bounded: a count that never moves fails.
    let after = before!;
    for (let round = 0; round < 2_000 && after === before; round++) {
      let x = 0;
      for (let i = 0; i < 1_000_000; i++) x += Math.sqrt(i);
      expect(x).toBeGreaterThan(0);
      after = processCpuMs(process.pid)!;
    }
    expect(after).toBeGreaterThan(before!);
  });

  it('says nothing of a process that is not there', () => {
    expect(processCpuMs(2 ** 22 + 1)).toBeNull();
  });
});
