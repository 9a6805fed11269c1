// The structure checker: a process of its own, started by check-in-process.ts while a command has
// documents to check, that reads each document from its private copy and checks its structure
// (check-structure.ts). What a check holds (every stream unpacked, a page's content parsed) ends
// with this process: the command's own memory never grows by it, and the command and its readers
// stay under their bound however long the document (docs/source-format.md, "Limits").
import { readFileSync } from 'node:fs';
import type { CheckJob, CheckReply } from './check-in-process.ts';
import { checkPdfStructure } from './check-structure.ts';

// The command that started it is gone: so is its work, by the one end that cannot hang.
process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
process.on('message', (job: CheckJob) => {
  let reply: CheckReply;
  try {
    reply = { id: job.id, fault: checkPdfStructure(readFileSync(job.path), job.limits) };
  } catch (error) {
    reply = { id: job.id, error: (error as Error).message.split('\n')[0]! };
  }
  process.send!(reply);
});
