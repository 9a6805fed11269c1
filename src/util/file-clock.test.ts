import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileSystemNow } from './file-clock.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('fileSystemNow', () => {
  it('reads the clock that dates files in the folder, and leaves nothing there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'file-clock-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'before'), '');
    // A Date holds whole milliseconds; a file's time may hold a fraction of one.
    const before = Math.floor(statSync(join(dir, 'before')).mtimeMs);
    const now = await fileSystemNow(dir);
    writeFileSync(join(dir, 'after'), '');
    expect(now!.getTime()).toBeGreaterThanOrEqual(before);
    expect(now!.getTime()).toBeLessThanOrEqual(Math.ceil(statSync(join(dir, 'after')).mtimeMs));
    expect(readdirSync(dir).sort()).toEqual(['after', 'before']);
  });

  it('is null where nothing can be made', async () => {
    expect(await fileSystemNow(join(tmpdir(), 'file-clock-missing', 'deeper'))).toBeNull();
  });
});
