// Loaded into a `tariff` process with NODE_OPTIONS=--import: counts the process's writes to the
// file system (each rename, removal, link, flush, close and written chunk, once it has completed)
// and kills the process with SIGKILL right after the Nth (TARIFF_TEST_KILL_AFTER_WRITE=N), as a
// crash or a kill -9 would. With TARIFF_TEST_COUNT_WRITES=1 it only counts, and prints
// "writes: <n>" on stderr at exit. Without either it does nothing.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const killAfter = Number(process.env.TARIFF_TEST_KILL_AFTER_WRITE ?? 0);
const counting = process.env.TARIFF_TEST_COUNT_WRITES === '1';

if (killAfter > 0 || counting) {
  let writes = 0;
  const wrote = () => {
    writes += 1;
    if (writes === killAfter) process.kill(process.pid, 'SIGKILL');
  };
  const afterPromise = (object, name) => {
    const original = object[name];
    object[name] = async function (...args) {
      const result = await original.apply(this, args);
      wrote();
      return result;
    };
  };
  const afterCallback = (object, name) => {
    const original = object[name];
    object[name] = function (...args) {
      const callback = args.at(-1);
      if (typeof callback === 'function')
        args[args.length - 1] = function (...results) {
          if (!results[0]) wrote();
          return callback.apply(this, results);
        };
      return original.apply(this, args);
    };
  };
  for (const name of ['rename', 'rm', 'unlink', 'symlink', 'writeFile']) afterPromise(fs.promises, name);
  for (const name of ['write', 'writev', 'fsync', 'rename']) afterCallback(fs, name);
  const handle = await fs.promises.open(new URL(import.meta.url), 'r');
  const fileHandle = Object.getPrototypeOf(handle);
  await handle.close();
  for (const name of ['sync', 'writeFile', 'write', 'writev']) afterPromise(fileHandle, name);
  syncBuiltinESMExports();
  if (counting) process.on('exit', () => process.stderr.write(`writes: ${writes}\n`));
}
