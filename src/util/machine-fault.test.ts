import { describe, expect, it } from 'vitest';
import { machineFault } from './machine-fault.ts';

describe('a machine fault told from a bug', () => {
  it('names a full disk with its path, and a database that is down or busy, through the causes', () => {
    expect(machineFault(Object.assign(new Error('write'), { code: 'ENOSPC', path: '/data/x' }))).toMatchObject({
      condition: 'disk_full',
      path: '/data/x',
    });
    expect(machineFault(new Error('wrapped', { cause: Object.assign(new Error('gone'), { code: '57P01' }) }))).toMatchObject({
      condition: 'database_unreachable',
    });
    // A deadlock or a lock not granted (a restore under way): busy, answered 503 and tried again, never a 500.
    for (const code of ['40P01', '55P03', '40001'])
      expect(machineFault(Object.assign(new Error('deadlock detected'), { code }))).toMatchObject({ condition: 'database_busy' });
  });

  it('is null for anything else: a bug stays a bug', () => {
    expect(machineFault(new TypeError('x is undefined'))).toBeNull();
    expect(machineFault(Object.assign(new Error('unique'), { code: '23505' }))).toBeNull();
  });
});
