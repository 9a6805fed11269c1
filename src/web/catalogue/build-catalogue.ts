import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { HistoryParts } from '../../history/history-store.ts';

/** What the builder is given: the files' bytes as the bucket holds them (gzip, checked against their manifests), and where to write. */
export interface CatalogueJob {
  release: Uint8Array | null;
  releaseWhere: string;
  /** The price history's files, replayed by the builder. */
  history: HistoryParts | null;
  /** The database to write: a new file, removed by the builder when it fails. */
  path: string;
}

export type CatalogueReply = { ok: true } | { ok: false; error: string };

/** Builders under way, ended with the service (their work is the service's). */
const running = new Set<ChildProcess>();
let exitHook = false;

/**
 * Where the builder's module is: beside this one in the sources; at dist/'s top in a build, where
 * scripts/build.js writes it as an entry of its own.
 */
const BUILDER = import.meta.url.endsWith('.ts')
  ? new URL('./catalogue-builder.ts', import.meta.url)
  : new URL('../../catalogue-builder.js', import.meta.url);

/**
 * Writes a catalogue's database at `job.path` in a process of its own (catalogue-builder.ts):
 * resolves once it is written; rejects with the builder's reason, or when it ends without one or
 * is still at work after `deadlineMs` (then it is killed). The builder ends when it is done, when
 * this process ends, and with the deadline: none outlives its work.
 */
export function buildCatalogue(job: CatalogueJob, { deadlineMs }: { deadlineMs: number }): Promise<void> {
  if (!exitHook) {
    process.once('exit', () => {
      for (const child of running) child.kill('SIGKILL');
    });
    exitHook = true;
  }
  return new Promise<void>((resolve, reject) => {
    // No inherited flags (a test runner's, a service's heap settings): the builder needs none.
    const child = fork(BUILDER, [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    running.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        child.kill('SIGKILL');
        rmSync(job.path, { force: true });
        reject(error);
      } else resolve();
    };
    const timer = setTimeout(
      () => settle(new Error(`the catalogue builder was still at work after ${Math.round(deadlineMs / 1000)} s`)),
      deadlineMs,
    );
    child.once('message', (reply: CatalogueReply) => settle(reply.ok ? null : new Error(reply.error)));
    child.once('error', (error) => settle(error));
    child.once('exit', (code, signal) => {
      running.delete(child);
      const last = stderr.trim().split('\n').at(-1);
      settle(new Error(`the catalogue builder ended (${signal ?? `exit ${code}`}) before its work was done${last ? `: ${last}` : ''}`));
    });
    child.send(job);
  });
}
