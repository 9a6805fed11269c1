import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { freePort } from '../helpers/machine.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let service: RunningServe | null = null;
afterEach(async () => {
  await service?.stop();
  service = null;
});

describe('tariff healthcheck (a container’s health check, without curl)', () => {
  it('exits 0 saying nothing when /healthz answers 200, 1 naming why when nothing answers', async () => {
    const dataDir = await tempDir();
    service = await serveInProcess(dataDir);
    expect(await runCli(['healthcheck', '--url', `${service.url}/healthz`, '--data-dir', dataDir])).toEqual({
      status: 0,
      stdout: '',
      stderr: '',
    });
    const down = await runCli(['healthcheck', '--url', `http://127.0.0.1:${await freePort()}/healthz`, '--data-dir', dataDir]);
    expect(down.status).toBe(1);
    expect(down.stderr).toContain('ECONNREFUSED');
  });

  it('asks 127.0.0.1 on TARIFF_PORT by default', async () => {
    const dataDir = await tempDir();
    const port = await freePort();
    const missing = await runCli(['healthcheck', '--data-dir', dataDir], { env: { TARIFF_PORT: String(port) } });
    expect(missing.stderr).toContain(`http://127.0.0.1:${port}/healthz: ECONNREFUSED`);
  });
});
