import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandContext } from './context.ts';
import { StepReporter } from './step-reporter.ts';

/** A reporter writing to a pipe (no terminal), with a clock the test moves. */
function reporter(options: { quiet?: boolean } = {}) {
  const stderr = new PassThrough();
  let written = '';
  stderr.on('data', (chunk: Buffer) => (written += chunk.toString()));
  let now = Date.parse('2026-11-23T03:00:00Z');
  const io = { stdout: new PassThrough(), stderr, env: {}, now: () => new Date(now), machineNow: () => new Date(now) };
  const steps = new StepReporter(new CommandContext(io, { dataDir: '.', json: false }), options.quiet);
  return { steps, lines: () => written.split('\n').filter(Boolean), advance: (ms: number) => (now += ms) };
}

describe('StepReporter without a terminal', () => {
  it('says a step line at once, and how far a long download got every ten seconds', () => {
    const { steps, lines, advance } = reporter();
    steps.step('fetch', 'page https://adm.example/prezzi: links to 9 document(s)');
    expect(lines()).toEqual(['tariff: fetch: page https://adm.example/prezzi: links to 9 document(s)']);
    steps.progress('download https://adm.example/sigari.pdf', 1024, 3 * 1024 * 1024);
    advance(9_000);
    steps.progress('download https://adm.example/sigari.pdf', 200 * 1024, 3 * 1024 * 1024);
    expect(lines()).toHaveLength(1);
    advance(1_000);
    steps.progress('download https://adm.example/sigari.pdf', 1536 * 1024, 3 * 1024 * 1024);
    expect(lines().at(-1)).toBe('tariff: fetch: download https://adm.example/sigari.pdf: 1.5 MB of 3.0 MB so far');
    steps.finish('download https://adm.example/sigari.pdf');
    advance(60_000);
    steps.progress('download https://adm.example/sigari.pdf', 2048, null);
    expect(lines()).toHaveLength(2);
  });

  it('says nothing with --quiet: cron mails only news and failures', () => {
    const { steps, lines, advance } = reporter({ quiet: true });
    steps.step('fetch', 'page …');
    steps.progress('download x', 1, null);
    advance(20_000);
    steps.progress('download x', 2, null);
    expect(lines()).toEqual([]);
  });
});
