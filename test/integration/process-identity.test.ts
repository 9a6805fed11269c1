import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { holderState, thisProcess } from '../../src/util/process-identity.ts';
import { asRoot } from '../helpers/machine.ts';

const MODULE = fileURLToPath(new URL('../../src/util/process-identity.ts', import.meta.url));
/** Prints the identity of a fresh Node.js process, as a lock it took would record it. */
const IDENTITY_SCRIPT = `import(${JSON.stringify(MODULE)}).then((m) => console.log(JSON.stringify(m.thisProcess())))`;

const identityOf = (command: string[]) => {
  const [file, ...args] = [...command, process.execPath, '-e', IDENTITY_SCRIPT];
  const result = spawnSync(file!, args, { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

describe.runIf(process.platform === 'linux')('a lock holder’s identity', () => {
  it('this process runs; one that exited is provably gone; a reused pid with another start time is gone too', () => {
    expect(holderState(thisProcess())).toBe('running');
    const exited = identityOf([]);
    expect(exited.pid).not.toBe(process.pid);
    expect(holderState(exited)).toBe('gone');
    expect(holderState({ ...thisProcess(), started: '1' })).toBe('gone');
  });

  it('a holder named without its identity (another version, a damaged record), or of another boot, is unknown: waited out', () => {
    expect(holderState(null)).toBe('unknown');
    expect(holderState({ pid: 1 })).toBe('unknown');
    expect(holderState({ ...thisProcess(), boot: 'another-boot' })).toBe('unknown');
  });

  it.runIf(asRoot)('a process of another PID namespace (a container with the same host name) is never taken for gone', () => {
    const inContainer = identityOf(['unshare', '-p', '--fork', '--mount-proc']);
    expect(inContainer.pidNamespace).not.toBe(thisProcess().pidNamespace);
    expect(holderState(inContainer)).toBe('unknown');
    // Without a /proc of its own, a namespace's process cannot identify itself: it names no namespace.
    const blind = identityOf(['unshare', '-p', '--fork']);
    expect(blind.pidNamespace).toBeNull();
    expect(holderState(blind)).toBe('unknown');
  });
});
