import { closeSync, fstatSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPriority, writesToJournal } from './journal-stream.ts';

describe('the journal’s priorities', () => {
  it('are said only where the stream is the one JOURNAL_STREAM names', () => {
    const fd = openSync(join(tmpdir(), `journal-stream-${process.pid}.log`), 'w');
    try {
      const { dev, ino } = fstatSync(fd);
      expect(writesToJournal({ JOURNAL_STREAM: `${dev}:${ino}` }, fd)).toBe(true);
      expect(writesToJournal({ JOURNAL_STREAM: `${dev}:${ino + 1}` }, fd), 'redirected since').toBe(false);
      expect(writesToJournal({}, fd)).toBe(false);
      expect(writesToJournal({ JOURNAL_STREAM: 'nonsense' }, fd)).toBe(false);
    } finally {
      closeSync(fd);
    }
  });

  it('prefix every line of a message, blank lines aside', () => {
    expect(withPriority('tariff: it failed\n  do this\n', 'error')).toBe('<3>tariff: it failed\n<3>  do this\n');
    expect(withPriority('tariff: warning: x\n', 'warning')).toBe('<4>tariff: warning: x\n');
  });
});
