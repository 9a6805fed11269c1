import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Ceph's RADOS Gateway for the S3 tests (test/helpers/s3-server.ts). .ci/run starts one before
 * the suite and exports TARIFF_TEST_RGW_*; otherwise this starts one (scripts/start-rgw.sh) in the
 * background as the run begins, and the first S3 test waits for it, so the files that need no S3
 * store do not wait. Stopped when the run ends, if started here.
 */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The projects whose files use an S3 store. */
const USES_S3 = new Set(['s3', 'proofs', 'paused', 'image']);

export function setup(project: { name: string }): (() => Promise<void>) | void {
  if (!USES_S3.has(project.name)) return;
  if (process.env.TARIFF_TEST_RGW_ENDPOINT || process.env.TARIFF_TEST_RGW_ENV_FILE) return;
  const folder = mkdtempSync(join(tmpdir(), 'tariff-rgw-start-'));
  const envFile = join(folder, 'rgw.env');
  // The workers inherit this: they read the file once the script has written it whole.
  process.env.TARIFF_TEST_RGW_ENV_FILE = envFile;
  const starting = spawn(
    'bash',
    ['-c', `bash scripts/start-rgw.sh > "$1.tmp" 2> "$1.err"; status=$?; mv "$1.tmp" "$1"; echo $status > "$1.status"`, 'rgw', envFile],
    {
      cwd: REPO,
      stdio: 'ignore',
    },
  );
  const started = new Promise<void>((resolve) => starting.on('close', () => resolve()));
  return async () => {
    await started;
    const dir = existsSync(envFile) ? /TARIFF_TEST_RGW_DIR=(\S+)/.exec(readFileSync(envFile, 'utf8'))?.[1] : undefined;
    if (dir)
      await new Promise<void>((resolve) =>
        spawn('bash', ['scripts/stop-rgw.sh', dir], { cwd: REPO, stdio: 'ignore' }).on('close', () => resolve()),
      );
    rmSync(folder, { recursive: true, force: true });
    delete process.env.TARIFF_TEST_RGW_ENV_FILE;
  };
}
