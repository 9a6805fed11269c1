import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/registry/sqlite/sqlite-store.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

describe('the SQLite store', () => {
  it('checkpoints its log from a thread of its own when it serves, so no commit pays for it', async () => {
    const path = join(await tempDir(), 'registry.sqlite');
    const store = new SqliteStore(path, { checkpointInBackground: true });
    try {
      await store.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
      const empty = statSync(path).size;
      await store.transaction(
        async (tx) => {
          for (let i = 0; i < 2000; i++) await tx.run('INSERT INTO notes (text) VALUES (?)', ['x'.repeat(100)]);
        },
        { durable: true },
      );
      // The commit left the pages in the log (far below the writer's own checkpoint threshold) …
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(200_000);
      // … and the background thread moves them into the database file.
      await waitFor(() => statSync(path).size > empty + 200_000, 'the background checkpoint');
      expect((await store.one('SELECT count(*) AS n FROM notes'))!.n).toBe(2000);
    } finally {
      await store.close();
    }
  });

  it('runs one transaction at a time, and a statement outside waits for the one open', async () => {
    const store = new SqliteStore(join(await tempDir(), 'registry.sqlite'));
    try {
      await store.exec('CREATE TABLE counter (n INTEGER NOT NULL)');
      await store.run('INSERT INTO counter (n) VALUES (0)');
      const order: string[] = [];
      const slow = store.transaction(
        async (tx) => {
          order.push('tx start');
          await new Promise((resolve) => setTimeout(resolve, 20));
          await tx.run('UPDATE counter SET n = n + 1');
          order.push('tx end');
        },
        { durable: false },
      );
      const outside = store.one('SELECT n FROM counter').then((row) => order.push(`read ${row!.n}`));
      await Promise.all([slow, outside]);
      expect(order).toEqual(['tx start', 'tx end', 'read 1']);
      await expect(store.transaction(async () => Promise.reject(new Error('no')), { durable: true })).rejects.toThrow('no');
      expect((await store.one('SELECT n FROM counter'))!.n).toBe(1);
    } finally {
      await store.close();
    }
  });
});
