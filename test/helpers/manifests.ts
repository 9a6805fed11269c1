import { buildManifest, type Manifest, type ManifestInput } from '../../src/release/manifest.ts';

const digest = (n: number) => ({ sha256: String(n).repeat(64), size: 1000 + n });

/** A release manifest of 1 December 2026 with made-up digests, for tests of what is done with manifests (signing, checking). */
export function sampleManifest(overrides: Partial<ManifestInput> = {}): Manifest {
  return buildManifest({
    version: '20261201.1',
    tariffDate: '2026-12-01',
    generatedAt: '2026-12-01T06:00:00+01:00',
    source: 'Agenzia delle Dogane e dei Monopoli',
    counts: { products: 3, barcodes: 1 },
    baseUrl: 'https://tariffa.example.it/v1',
    digests: { json: digest(1), sqlite: digest(2), docdb: digest(3) },
    docdbVersion: '1.8.0',
    ...overrides,
  });
}
