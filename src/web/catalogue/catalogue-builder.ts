// The catalogue builder: a process of its own, started by build-catalogue.ts for each new release
// or history, that reads the release's rows and the whole price history and writes the catalogue's
// database (catalogue-db.ts). Its memory, the peak of reading every row, ends with it: the
// service's own heap never grows to hold what it read once.
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { historyOfParts } from '../../history/history-store.ts';
import { parseDatasetJson } from '../../release/dataset-json.ts';
import { gunzip } from '../../release/gzip.ts';
import type { CatalogueJob, CatalogueReply } from './build-catalogue.ts';
import { writeCatalogue } from './catalogue-db.ts';

// The service that started it is gone: so is its work, by the one end that cannot hang (Node's exit
// sequence can; the file it was writing is a leftover the next service sweeps).
process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
process.once('message', (job: CatalogueJob) => {
  let reply: CatalogueReply;
  try {
    const rows = job.release ? parseRows(job.release, job.releaseWhere) : null;
    const history = job.history ? historyOfParts(job.history).history : null;
    const db = new Database(job.path);
    try {
      db.pragma('journal_mode = OFF');
      writeCatalogue(db, rows, history);
    } finally {
      db.close();
    }
    reply = { ok: true };
  } catch (error) {
    rmSync(job.path, { force: true });
    reply = { ok: false, error: (error as Error).message.split('\n')[0]! };
  }
  process.send!(reply, () => process.disconnect());
});

function parseRows(file: Uint8Array, where: string) {
  try {
    return parseDatasetJson(gunzip(file));
  } catch (error) {
    throw new Error(`${where}: not a readable release: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
}
