// Checkpoints a SQLite registry's write-ahead log from a thread of its own, for sqlite-store.ts:
// a checkpoint copies the log's pages into the database file and waits for the disk, and done by
// the connection that commits it would be paid by whichever request committed last (a barcode
// batch, most often). Plain JavaScript: the thread starts without tsx's loader.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
// PASSIVE copies what it can without waiting for readers or writers, and never blocks them.
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error?.message ?? error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
