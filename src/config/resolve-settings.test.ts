import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from './resolve-settings.ts';

const dataDir = (config?: unknown) => {
  const dir = mkdtempSync(join(tmpdir(), 'tariff-settings-'));
  if (config !== undefined) writeFileSync(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return dir;
};

describe('resolveSettings', () => {
  it('takes each setting from its option, else its variable, else config.json, else its default', async () => {
    const { settings } = await resolveSettings({
      flags: { keep: '7', sourcePage: [] },
      env: { TARIFF_KEEP: '9', TARIFF_PORT: '9090', TARIFF_SOURCE_PAGES: 'https://a.example/p, https://b.example/q' },
      dataDir: dataDir({ keep: 11, bucket: 's3://releases/tariff', maxShrink: 5 }),
    });
    expect(settings).toMatchObject({
      keep: 7,
      port: 9090,
      bucket: 's3://releases/tariff',
      maxShrink: 5,
      sourcePages: ['https://a.example/p', 'https://b.example/q'],
      host: '127.0.0.1',
      signUpApproval: ['Integration'],
      trustProxy: 0,
    });
  });

  it('reports every problem at once, each naming where the value came from', async () => {
    const problem = resolveSettings({
      flags: { port: '99999', maxShrink: 'lots' },
      env: { TARIFF_TRUST_PROXY: 'maybe', TARIFF_SIGNUP_APPROVAL: 'User,Shop', TARIFF_BASE_URL: 'ftp://x' },
      dataDir: dataDir({ keep: 0, colour: 'blue' }),
    });
    // The remedy is in the settings' documentation, not in --help.
    await expect(problem).rejects.toMatchObject({ code: 'usage', exitCode: 2, hint: expect.stringContaining('docs/operations.md') });
    const { message } = (await problem.catch((error: Error) => error)) as Error;
    expect(message).toMatch(/^7 settings are not valid:/);
    expect(message).toContain('--port 99999 is not a whole number from 0 to 65535');
    expect(message).toContain('--max-shrink lots is not a percentage between 0 and 100');
    expect(message).toContain('TARIFF_TRUST_PROXY=maybe is not true, false or a number of proxies');
    expect(message).toContain('TARIFF_SIGNUP_APPROVAL=User,Shop is not account types');
    expect(message).toContain('TARIFF_BASE_URL=ftp://x is not an http(s) URL');
    expect(message).toMatch(/config\.json: keep is not a whole number of at least 1/);
    expect(message).toMatch(/config\.json: colour is not a setting/);
  });

  it('never shows a secret, and keeps secrets out of config.json', async () => {
    const { message } = (await resolveSettings({ env: {}, dataDir: dataDir({ smtpUrl: 'smtp://user:hunter2@mail.example' }) }).catch(
      (error: Error) => error,
    )) as Error;
    expect(message).toContain('smtpUrl is a secret: set SMTP_URL in the environment instead');
    const bad = await resolveSettings({ env: { SMTP_URL: 'http://user:hunter2@mail' }, dataDir: dataDir() }).catch((error: Error) => error);
    expect((bad as Error).message).toBe('SMTP_URL=… is not an smtp:// or smtps:// URL');
    expect((bad as Error).message).not.toContain('hunter2');
  });

  it('takes a metrics token only as a Bearer header can carry it', async () => {
    const spaced = await resolveSettings({ env: { TARIFF_METRICS_TOKEN: 'metriche segrete 0123' }, dataDir: dataDir() }).catch(
      (error: Error) => error,
    );
    expect((spaced as Error).message).toBe(
      'TARIFF_METRICS_TOKEN=… is not letters, digits and - . _ ~ + / only (what a Bearer header carries), no spaces',
    );
    const { settings } = await resolveSettings({ env: { TARIFF_METRICS_TOKEN: 'abc-DEF_0123.456~+/==' }, dataDir: dataDir() });
    expect(settings.metricsToken).toBe('abc-DEF_0123.456~+/==');
  });

  it('warns of variables that look like settings but are none, and refuses a config.json that is not JSON', async () => {
    const { warnings } = await resolveSettings({
      env: { TARIFF_BUCKETS: 's3://x', TARIFF_DATA_DIR: '/srv', TARIFF_TEST_X: '1', TARIFF_DEBUG: '1', TARIFF_DEBUGGING: '1' },
      dataDir: dataDir(),
    });
    expect(warnings).toEqual([
      'TARIFF_BUCKETS is not a setting and is ignored (docs/operations.md lists them)',
      'TARIFF_DEBUGGING is not a setting and is ignored (docs/operations.md lists them)',
    ]);
    await expect(resolveSettings({ env: {}, dataDir: dataDir('{ keep: 3') })).rejects.toThrow(/config\.json: not JSON/);
  });
});
