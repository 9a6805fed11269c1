import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { TEST_BACKUP_RECIPIENT } from '../helpers/backup-key.ts';

let service: RunningServe | null = null;
afterEach(async () => {
  await service?.stop();
  service = null;
});

/** The alert rules exactly as docs/operations.md prints them. */
const RULES = /The alerts that matter[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readFileSync(join(REPO, 'docs/operations.md'), 'utf8'))![1]!;

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;

/** The samples of an exposition text, as promtool input series that keep their value for `minutes`. */
function recorded(text: string, minutes: number): { series: string; values: string }[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const at = line.lastIndexOf(' ');
      return { series: line.slice(0, at), values: `${line.slice(at + 1)}x${minutes}` };
    });
}

/** Runs `promtool test rules` on the documented rules with these cases; returns what it printed when it failed. */
async function promtoolTest(tests: unknown[]): Promise<string | null> {
  const dir = await tempDir();
  writeFileSync(join(dir, 'rules.yml'), RULES);
  writeFileSync(join(dir, 'test.yml'), JSON.stringify({ rule_files: ['rules.yml'], evaluation_interval: '1m', tests }));
  const result = spawnSync('promtool', ['test', 'rules', join(dir, 'test.yml')], { encoding: 'utf8' });
  return result.status === 0 ? null : `${result.stdout}${result.stderr}`;
}

const never = (alertname: string, at: string) => ({ eval_time: at, alertname, exp_alerts: [] });
const fires = (alertname: string, at: string) => ({ eval_time: at, alertname, exp_alerts: [{ exp_labels: {} }] });

describe.skipIf(!hasPromtool)('the documented alerts, evaluated by promtool', () => {
  it('stay quiet on an unsigned service before any release: the gauges with no value are absent', async () => {
    service = await serveInProcess(await tempDir(), { TARIFF_METRICS_PORT: '0' });
    const url = String((await service.logged((entry) => entry.event === 'metrics.listening')).url);
    const text = await (await fetch(url)).text();
    for (const absent of [
      'tariff_manifest_signature_expires_in_seconds',
      'tariff_release_age_seconds',
      'tariff_release_refresh_age_seconds',
    ])
      expect(
        text.split('\n').filter((line) => line.startsWith(`${absent} `) || line.startsWith(`${absent}{`)),
        absent,
      ).toEqual([]);
    const failed = await promtoolTest([
      {
        interval: '1m',
        input_series: recorded(text, 60),
        alert_rule_test: ['TariffSignatureExpiringSoon', 'TariffReleaseStale', 'TariffServerErrors'].map((alert) => never(alert, '45m')),
      },
    ]);
    expect(failed).toBeNull();
  });

  it('fire where they should: a manifest about to expire, a bucket not followed, answers that are errors', async () => {
    const failed = await promtoolTest([
      {
        interval: '1m',
        input_series: [
          // Signed for a week, then for an hour only (the release runs stopped re-signing).
          { series: 'tariff_manifest_signature_expires_in_seconds{instance="a"}', values: '604800x10 3600-60x30' },
          // Read every few seconds, then not at all from minute 10.
          { series: 'tariff_release_refresh_age_seconds{instance="a"}', values: '5x10 60+60x30' },
          { series: 'tariff_release_stale{instance="a"}', values: '0x40' },
          { series: 'tariff_http_requests_total{instance="a",route="/v1/version",method="GET",status="200"}', values: '0+100x40' },
          { series: 'tariff_http_requests_total{instance="a",route="/v1/version",method="GET",status="500"}', values: '0x10 0+5x30' },
        ],
        alert_rule_test: [
          never('TariffSignatureExpiringSoon', '9m'),
          never('TariffSignatureExpiringSoon', '15m'),
          fires('TariffSignatureExpiringSoon', '25m'),
          never('TariffReleaseStale', '15m'),
          fires('TariffReleaseStale', '30m'),
          never('TariffServerErrors', '10m'),
          fires('TariffServerErrors', '35m'),
        ],
      },
    ]);
    expect(failed).toBeNull();
  });
});

describe.skipIf(!hasPromtool)('the registry backup alert, evaluated by promtool', () => {
  it('fires when no backup is newer than two hours, or none was ever taken, and not while hourly backups come', async () => {
    // An hourly backup: the age climbs to an hour, then starts again.
    const hourly = Array.from({ length: 4 }, () => '0+60x59').join(' ');
    const failed = await promtoolTest([
      {
        interval: '1m',
        input_series: [{ series: 'tariff_registry_backup_age_seconds{instance="a"}', values: hourly }],
        alert_rule_test: ['30m', '90m', '150m', '230m'].map((at) => never('TariffRegistryBackupStale', at)),
      },
      {
        interval: '1m',
        // The backups stopped: the last one, ten minutes old, only ages.
        input_series: [{ series: 'tariff_registry_backup_age_seconds{instance="a"}', values: '600+60x200' }],
        alert_rule_test: [never('TariffRegistryBackupStale', '100m'), fires('TariffRegistryBackupStale', '125m')],
      },
      {
        interval: '1m',
        // A service scraped, and no backup in its bucket at all.
        input_series: [{ series: 'tariff_release_stale{instance="a"}', values: '0x40' }],
        alert_rule_test: [fires('TariffRegistryBackupStale', '15m')],
      },
    ]);
    expect(failed).toBeNull();
  });

  it("reads the age from the bucket's newest backup, as a backup writes it", async () => {
    const dataDir = await tempDir();
    // The bucket on another disk than the data dir, as a backup's destination must be.
    const env = { TARIFF_BUCKET: join(await tempDir(), 'bucket'), TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT };
    expect((await runCli(['accounts', 'create', 'uno@example.it', '--type', 'User', '--data-dir', dataDir], { env })).status).toBe(0);
    expect((await runCli(['registry', 'backup', '--quiet', '--data-dir', dataDir], { env })).status).toBe(0);
    service = await serveInProcess(dataDir, { ...env, TARIFF_METRICS_PORT: '0' });
    const url = String((await service.logged((entry) => entry.event === 'metrics.listening')).url);
    // The first scrape starts the read in the background; a later one has it.
    const gauge = async () =>
      (await (await fetch(url)).text()).split('\n').find((line) => line.startsWith('tariff_registry_backup_age_seconds '));
    await gauge();
    await waitFor(async () => (await gauge()) !== undefined, 'the backup to be read');
    const age = Number((await gauge())!.split(' ')[1]);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(600);
  });
});

it('promtool is there where CI runs (Debian’s prometheus package)', () => {
  if (process.env.CI) expect(execFileSync('promtool', ['--version'], { encoding: 'utf8' })).toContain('promtool');
});
