import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandContext } from './context.ts';

function context(json = false) {
  const stdout = new PassThrough();
  let written = '';
  stdout.on('data', (chunk) => (written += chunk));
  const ctx = new CommandContext(
    { stdout, stderr: new PassThrough(), env: {}, now: () => new Date(0), machineNow: () => new Date(0) },
    { dataDir: '.', json },
  );
  return { ctx, written: () => written };
}

describe('CommandContext output', () => {
  it('never writes a character the terminal would obey into human output', () => {
    const { ctx, written } = context();
    ctx.result({}, 'AURORA\u001b]0;pwned\u0007 ROSSA\u202E 5,70\nsecond line');
    ctx.info('org: Tabacchi\u001b[2J Rossi');
    expect(written()).toBe('AURORA]0;pwned ROSSA 5,70\nsecond line\norg: Tabacchi[2J Rossi\n');
  });

  it('keeps JSON output as JSON, escaped by JSON itself', () => {
    const { ctx, written } = context(true);
    ctx.result({ name: 'A\u001bB' }, 'ignored');
    expect(JSON.parse(written())).toEqual({ name: 'A\u001bB' });
  });
});
