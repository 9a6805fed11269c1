import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// Under systemd, stderr is the journal's stream (JOURNAL_STREAM names it): the product's own
// errors and warnings carry sd-daemon's priority prefixes, so `journalctl -p err` finds them.
async function runWithStderrIn(file: string, args: string[], env: (stream: string) => Record<string, string>) {
  const fd = openSync(file, 'w');
  const { dev, ino } = fstatSync(fd);
  try {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO,
      env: { ...process.env, ...env(`${dev}:${ino}`) },
      stdio: ['ignore', 'ignore', fd],
    });
    return await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  } finally {
    closeSync(fd);
  }
}

describe('errors and warnings in the journal', () => {
  it('say their priority (<3>, <4>) when stderr is the journal’s stream, and nothing otherwise', async () => {
    const dir = await tempDir();
    const args = ['release', '--quiet', '--data-dir', join(dir, 'data')];
    const env = (stream: string) => ({
      JOURNAL_STREAM: stream,
      TARIFF_NOT_A_SETTING: '1',
      TARIFF_SOURCE_URLS: 'http://127.0.0.1:9/listino.pdf',
      // One try: the refusal is what is looked at, not the retries' backoff.
      TARIFF_FETCH_ATTEMPTS: '1',
    });
    const journal = join(dir, 'journal.log');
    expect(await runWithStderrIn(journal, args, env)).toBe(1);
    const lines = readFileSync(journal, 'utf8').split('\n').filter(Boolean);
    expect(lines.some((line) => line.startsWith('<4>tariff: warning: TARIFF_NOT_A_SETTING'))).toBe(true);
    expect(lines.some((line) => line.startsWith('<3>tariff: '))).toBe(true);
    expect(
      lines.every((line) => /^<[34]>/.test(line)),
      lines.join('\n'),
    ).toBe(true);
    // The same run with stderr elsewhere than the stream the variable names: plain lines.
    const elsewhere = join(dir, 'plain.log');
    expect(await runWithStderrIn(elsewhere, args, () => ({ ...env('1:1') }))).toBe(1);
    expect(readFileSync(elsewhere, 'utf8')).not.toMatch(/^<\d>/m);
  });
});
