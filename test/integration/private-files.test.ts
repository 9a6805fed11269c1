import { chmodSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMailer } from '../../src/mail/mailer.ts';
import { openRegistry } from '../../src/registry/open-registry.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { DEFAULT_RULES } from '../../src/barcodes/load-rules.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('files that hold secrets are private to the service user', () => {
  it('creates the registry 0600 in a new 0700 folder, and narrows an existing one', async () => {
    const dataDir = join(await tempDir(), 'var');
    const registry = await openRegistry({ dataDir, rules: DEFAULT_RULES });
    await registry.createAccount({ email: 'shop@example.it', type: 'User' }, new Date());
    await registry.close();
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'registry.sqlite'))).toBe(0o600);

    const loose = join(await tempDir(), 'registry.sqlite');
    writeFileSync(loose, '');
    chmodSync(loose, 0o644);
    await (await openRegistry({ dataDir: '.', url: `sqlite:${loose}`, rules: DEFAULT_RULES })).close();
    expect(modeOf(loose)).toBe(0o600);
  });

  it('writes outbox mails (live sign-in links) 0600 in a 0700 folder', async () => {
    const dataDir = await tempDir();
    const mailer = createMailer({ from: 'test <t@example.it>', dataDir, log: () => {} });
    await mailer.send({ to: 'shop@example.it', subject: 'Accesso', text: 'link', html: '<p>link</p>' });
    const outbox = join(dataDir, 'outbox');
    expect(modeOf(outbox)).toBe(0o700);
    const [mail] = readdirSync(outbox);
    expect(modeOf(join(outbox, mail!))).toBe(0o600);
  });
});
