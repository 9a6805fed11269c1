import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

describe('tariff keys: labels and prefixes typed by an operator', () => {
  it('stores labels without control characters and bounded, and refuses a revoke prefix too short to be safe', async () => {
    const dataDir = await tempDir();
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
    expect((await cli(['accounts', 'create', 'shop@example.it', '--type', 'User'])).status).toBe(0);
    const created = await cli([
      'keys',
      'create',
      'shop@example.it',
      '--label',
      `cassa\u001b[2J\u001b]0;pwned\u0007 ${'x'.repeat(300)}`,
      '--json',
    ]);
    expect(created.status).toBe(0);
    const listed = await cli(['keys', 'list', 'shop@example.it', '--json']);
    const [key] = JSON.parse(listed.stdout);
    expect(key.label).toMatch(/^cassa \[2J ]0;pwned x+$/);
    expect([...key.label]).toHaveLength(100);
    // The escape character itself is what must not reach the terminal.
    // eslint-disable-next-line no-control-regex
    expect((await cli(['keys', 'list', 'shop@example.it'])).stdout).not.toMatch(/\u001b/);

    for (const prefix of ['', 'ttd_', 'ttd_A']) {
      const refused = await cli(['keys', 'revoke', 'shop@example.it', prefix]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('too short to name a key');
    }
    expect((await cli(['keys', 'revoke', 'shop@example.it', key.prefix])).status).toBe(0);
  });
});
