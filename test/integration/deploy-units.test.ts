import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The systemd units of deploy/systemd, checked as systemd would load them, without a running
// systemd: `systemd-analyze verify` (syntax, directives, the command there) and the sandbox's
// exposure score of `systemd-analyze security --offline=true` (0 best, 10 worst; ≤ 2.0 is "OK").
const UNITS = join(REPO, 'deploy/systemd');
const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

/** The units as installed here: ExecStart names this checkout's command instead of /opt/tariff/bin/tariff. */
async function installed(): Promise<string> {
  const dir = await tempDir();
  for (const name of readdirSync(UNITS))
    writeFileSync(join(dir, name), readFileSync(join(UNITS, name), 'utf8').replaceAll('/opt/tariff/bin/tariff', CLI));
  return dir;
}

describe.skipIf(!hasSystemdAnalyze)('the systemd units in deploy/systemd', () => {
  it('every unit and timer passes systemd-analyze verify', async () => {
    const dir = await installed();
    const files = readdirSync(dir)
      .filter((name) => /\.(service|timer)$/.test(name))
      .map((name) => join(dir, name));
    expect(files.filter((file) => file.endsWith('.timer')).length).toBeGreaterThanOrEqual(3);
    const verified = spawnSync('systemd-analyze', ['verify', ...files], { encoding: 'utf8' });
    expect(`${verified.stdout}${verified.stderr}`).toBe('');
    expect(verified.status).toBe(0);
  });

  it('every service is sandboxed to an exposure of 2.0 or less, and runs as no user of the host', async () => {
    const dir = await installed();
    for (const name of readdirSync(dir).filter((file) => file.endsWith('.service'))) {
      const security = spawnSync('systemd-analyze', ['security', '--offline=true', join(dir, name)], { encoding: 'utf8' });
      const score = Number(/Overall exposure level for \S+: ([\d.]+)/.exec(security.stdout)?.[1]);
      expect(score, `${name}: ${security.stdout.split('\n').at(-2)}`).toBeLessThanOrEqual(2.0);
      // The till's sync runs as a user of its own (its folder must be readable by the till's programs); every other as a dynamic one.
      expect(readFileSync(join(dir, name), 'utf8')).toMatch(name === 'tariff-sync.service' ? /^User=tariff-till$/m : /^DynamicUser=yes$/m);
    }
  });

  it('the timers run release every 15 minutes and the backup hourly, never two at once', () => {
    expect(readFileSync(join(UNITS, 'tariff-release.timer'), 'utf8')).toMatch(/^OnCalendar=\*:0\/15$/m);
    expect(readFileSync(join(UNITS, 'tariff-registry-backup.timer'), 'utf8')).toMatch(/^OnCalendar=hourly$/m);
    const calendar = spawnSync('systemd-analyze', ['calendar', '*:0/15', '--iterations=2'], { encoding: 'utf8' });
    expect(calendar.status).toBe(0);
    expect(calendar.stdout).toMatch(/Next elapse:.*:(00|15|30|45):00/);
  });
});

it('systemd-analyze is there where CI runs (Debian’s systemd package)', () => {
  if (process.env.CI) expect(hasSystemdAnalyze).toBe(true);
});
