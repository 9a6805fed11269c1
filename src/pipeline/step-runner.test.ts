import { describe, expect, it } from 'vitest';
import { runSteps, type Step } from './step-runner.ts';

interface State {
  done: string[];
  unchanged?: boolean;
}

const steps: Step<State>[] = [
  { name: 'build', dryRunSafe: true, run: async (state, say) => (state.done.push('build'), say('built 20261122.1')) },
  {
    name: 'upload',
    dryRunSafe: false,
    skip: (state) => (state.unchanged ? 'nothing changed' : null),
    run: async (state, say) => (state.done.push('upload'), say('3 files')),
    wouldDo: async () => ['upload 3 files'],
  },
  { name: 'switch', dryRunSafe: false, run: async (state) => void state.done.push('switch') },
];

const lines = () => {
  const said: string[] = [];
  return { said, report: (step: string, line: string) => said.push(`${step}: ${line}`) };
};

describe('runSteps', () => {
  it('runs every step in order and reports their lines', async () => {
    const { said, report } = lines();
    expect((await runSteps(steps, { done: [] }, { report })).done).toEqual(['build', 'upload', 'switch']);
    expect(said).toEqual(['build: built 20261122.1', 'upload: 3 files']);
  });

  it('in a dry run, runs only the safe steps and says what the others would do', async () => {
    const { said, report } = lines();
    expect((await runSteps(steps, { done: [] }, { dryRun: true, report })).done).toEqual(['build']);
    expect(said).toEqual(['build: built 20261122.1', 'upload: would upload 3 files', 'switch: would run']);
  });

  it('passes over a step with nothing to do, saying why', async () => {
    const { said, report } = lines();
    expect((await runSteps(steps, { done: [], unchanged: true }, { report })).done).toEqual(['build', 'switch']);
    expect(said).toContain('upload: skipped: nothing changed');
  });

  it('stops at a failing step, names it, and lets the error go up unchanged', async () => {
    const { said, report } = lines();
    const failure = new Error('bucket down');
    const failing: Step<State>[] = [steps[0]!, { name: 'upload', dryRunSafe: false, run: async () => Promise.reject(failure) }, steps[2]!];
    const state = { done: [] as string[] };
    await expect(runSteps(failing, state, { report })).rejects.toBe(failure);
    expect(said.at(-1)).toBe('upload: failed');
    expect(state.done).toEqual(['build']);
  });
});
