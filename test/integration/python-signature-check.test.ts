import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/release/manifest.ts';
import { sampleManifest } from '../helpers/manifests.ts';
import { signManifest } from '../../src/release/manifest-signature.ts';
import { generateSigningKey, signerFromPem } from '../../src/release/signing-keys.ts';
import { REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** The Python check docs/sync.md gives integrators: its python block under "Signed manifests", run as printed. */
const DOC_CHECK = /## Signed manifests[\s\S]*?```python\n([\s\S]*?)```/.exec(readFileSync(join(REPO, 'docs/sync.md'), 'utf8'))![1]!;

const DRIVER = `
import sys
manifest = json.load(open(sys.argv[1]))
pinned = {sys.argv[2]: (sys.argv[3], None)}
now = datetime.fromisoformat(sys.argv[4])
last = int(sys.argv[5]) if len(sys.argv) > 5 else None
try:
    print("ok", check_manifest(manifest, pinned, last, now))
except Exception as error:
    print("refused", type(error).__name__, error)
`;

/** A Python 3 that has the `cryptography` package (Debian's python3-cryptography, which .ci/run installs). */
function python(): string {
  for (const candidate of ['python3', '/usr/bin/python3'])
    if (spawnSync(candidate, ['-c', 'import cryptography'], { stdio: 'ignore' }).status === 0) return candidate;
  throw new Error('no python3 with the cryptography package: install python3-cryptography (.ci/run does)');
}

describe("docs/sync.md's Python check of a signed manifest, against manifests the builder signs", () => {
  it('accepts a good one (whatever its files’ URLs), refuses a tampered, expired or replayed one', async () => {
    const dir = await tempDir();
    const script = join(dir, 'check.py');
    writeFileSync(script, DOC_CHECK + DRIVER);
    const { privatePem, entry } = generateSigningKey(new Date('2026-12-01T00:00:00Z'));
    const release = sampleManifest({
      provenance: {
        builder: 'tariff 0.1.0',
        date: '2026-12-01',
        documents: [{ url: 'https://www.adm.gov.it/1-ANTEPRIMA.pdf', sha256: 'a'.repeat(64), size: 123, pageDate: '2026-12-01' }],
      },
    });
    const signed = signManifest(release, signerFromPem(privatePem), { sequence: 3, expires: new Date('2026-12-08T00:00:00Z') });
    const check = (manifest: Manifest, now = '2026-12-02T00:00:00+00:00', last?: number) => {
      const file = join(dir, 'manifest.json');
      writeFileSync(file, JSON.stringify(manifest));
      const args = [script, file, entry.keyId, entry.publicKey, now, ...(last === undefined ? [] : [String(last)])];
      return execFileSync(python(), args, { encoding: 'utf8' }).trim();
    };

    expect(check(signed)).toBe('ok 3');
    const moved = structuredClone(signed);
    moved.files.sqlite.url = 'https://cdn.example.net/dataset.sqlite.gz';
    expect(check(moved)).toBe('ok 3');
    const tampered = structuredClone(signed);
    tampered.files.json.sha256 = 'f'.repeat(64);
    expect(check(tampered)).toMatch(/^refused InvalidSignature/);
    expect(check(signed, '2026-12-08T00:00:00+00:00')).toBe('refused ValueError expired');
    expect(check(signed, '2026-12-02T00:00:00+00:00', 4)).toBe('refused ValueError replayed');
    expect(check(release)).toBe('refused ValueError unsigned');
  });
});
