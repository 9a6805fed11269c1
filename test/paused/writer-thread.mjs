// Writer A of the paused matrices in a worker thread kept warm (test/paused/writers.ts): the CLI's
// own `main` from dist/, as bin/tariff.js runs it, one command after another. Plain JavaScript, so
// that Node loads it without vitest's transform, exactly as it loads the built CLI.
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';

const CLI = fileURLToPath(new URL('../../bin/tariff.js', import.meta.url));
const { main, cliIo } = await import(new URL('../../dist/main.js', import.meta.url).href);
// The failpoint's stop in a worker thread (src/storage/write-failpoint.ts, WORKER_STOP).
const WORKER_STOP = Symbol.for('tariff.test.writeFailpointStop');

function captured() {
  const chunks = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

parentPort.on('message', async ({ args, env, cell }) => {
  const resumed = new Int32Array(cell);
  // Blocks this thread as SIGSTOP blocks a process: no timer, lease renewal or socket of the
  // command's runs until the host lets it go. The host hears of the stop first.
  globalThis[WORKER_STOP] = (line) => {
    parentPort.postMessage({ type: 'stopped', line });
    Atomics.wait(resumed, 0, 0);
  };
  // The command reads the environment it is given; a library that reads process.env reads the same.
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  const stdout = captured();
  const stderr = captured();
  let status;
  try {
    status = await main([process.execPath, CLI, ...args], cliIo(env, { stdout: stdout.stream, stderr: stderr.stream }));
  } catch (error) {
    stderr.stream.write(`writer thread: main threw: ${error?.stack ?? error}\n`);
    status = 70;
  }
  parentPort.postMessage({ type: 'exit', status, stdout: stdout.text(), stderr: stderr.text() });
});
