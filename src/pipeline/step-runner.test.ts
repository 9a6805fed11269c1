import { describe, expect, it } from 'vitest';
import { StepRunner, type RunOptions } from './step-runner.ts';

/** A small pipeline: build (computes), upload (an effect, passed over when nothing changed), switch (an effect). */
async function pipeline(runner: StepRunner, unchanged: boolean, failUpload?: Error) {
  const done: string[] = [];
  const version = await runner.compute('build', (say) => (done.push('build'), say('built 20261122.1'), '20261122.1'));
  if (unchanged) runner.skip('upload', 'nothing changed');
  else
    await runner.effect('upload', {
      run: async (say) => {
        if (failUpload) throw failUpload;
        done.push('upload');
        say('3 files');
      },
      wouldDo: () => ['upload 3 files'],
    });
  const switched = await runner.effect('switch', { run: async () => (done.push('switch'), version), wouldDo: () => ['run'] });
  return { done, switched };
}

const lines = (options: Omit<RunOptions, 'report'> = {}) => {
  const said: string[] = [];
  return { said, runner: new StepRunner({ ...options, report: (step, line) => said.push(`${step}: ${line}`) }) };
};

describe('StepRunner', () => {
  it('runs every step in order, reports their lines and hands on what each returns', async () => {
    const { said, runner } = lines();
    expect(await pipeline(runner, false)).toEqual({ done: ['build', 'upload', 'switch'], switched: '20261122.1' });
    expect(said).toEqual(['build: built 20261122.1', 'upload: 3 files']);
  });

  it('in a dry run, runs only the computing steps and says what the others would do', async () => {
    const { said, runner } = lines({ dryRun: true });
    expect(await pipeline(runner, false)).toEqual({ done: ['build'], switched: null });
    expect(said).toEqual(['build: built 20261122.1', 'upload: would upload 3 files', 'switch: would run']);
  });

  it('passes over a step with nothing to do, saying why', async () => {
    const { said, runner } = lines();
    expect((await pipeline(runner, true)).done).toEqual(['build', 'switch']);
    expect(said).toContain('upload: skipped: nothing changed');
  });

  it('stops at a failing step, names it, and lets the error go up unchanged', async () => {
    const { said, runner } = lines();
    const failure = new Error('bucket down');
    await expect(pipeline(runner, false, failure)).rejects.toBe(failure);
    expect(said).toEqual(['build: built 20261122.1', 'upload: failed']);
  });
});
