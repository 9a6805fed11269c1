import * as z from 'zod';
import { SCHEMA_VERSION } from '../dataset/model.ts';
import { sha256Hex } from '../util/digests.ts';
import { releaseVersionSchema } from './release-version.ts';

export const FORMATS = ['json', 'sqlite', 'docdb'] as const;
export type Format = (typeof FORMATS)[number];

export const fileName = (format: Format) => `dataset.${format}.gz`;
export const MANIFEST_FILE = 'manifest.json';

const fileEntry = z.strictObject({
  url: z.string().url(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
});

/** An instant with its offset, as every time in a manifest and in the key list is written. */
export const isoInstant = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);

/** The one signature algorithm: Ed25519 (RFC 8032), from node:crypto. */
export const SIGNATURE_ALGORITHM = 'ed25519';
/** A signing key's id: the first 16 hex digits of the SHA-256 of its raw public key. */
export const KEY_ID = /^[0-9a-f]{16}$/;
/** A raw 32-byte Ed25519 public key in base64. */
export const PUBLIC_KEY_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/** One document of the authority a release was built from (docs/dataset.md, "Provenance"). */
const provenanceDocument = z.strictObject({
  url: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  /** The effective date the page linking the document gave it (an undated notice), else null. */
  pageDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullable(),
});

/** What a release was built from, so anyone can build it again (`tariff verify --rebuild`). */
export const provenanceSchema = z.strictObject({
  /** The builder that made it: `tariff <version>`. */
  builder: z.string().min(1),
  /** The day whose tariff in force was built. */
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  documents: z.array(provenanceDocument),
});
export type Provenance = z.infer<typeof provenanceSchema>;

/** A manifest's signature: by which key, how, and the value (base64) over its signed form (manifest-signature.ts). */
export const signatureSchema = z.strictObject({
  keyId: z.string().regex(KEY_ID),
  algorithm: z.literal(SIGNATURE_ALGORITHM),
  value: z.string().regex(/^[A-Za-z0-9+/]{86}==$/),
});
export type ManifestSignature = z.infer<typeof signatureSchema>;

/**
 * The release manifest, field for field as section 2.1 of the interface spec, then the additions
 * of docs/dataset.md: the release's provenance, and on the bucket's current manifest when the
 * operator signs (`sequence`, `expires`, `signature`).
 */
export const manifestSchema = z.strictObject({
  version: releaseVersionSchema,
  tariffDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  generatedAt: isoInstant,
  source: z.string().min(1),
  schemaVersion: z.number().int(),
  counts: z.strictObject({ products: z.number().int().nonnegative(), barcodes: z.number().int().nonnegative() }),
  files: z.strictObject({
    json: fileEntry,
    sqlite: fileEntry,
    docdb: fileEntry.extend({ docdbVersion: z.string().min(1), schemaVersion: z.number().int() }),
  }),
  provenance: provenanceSchema.optional(),
  /** Grows by one with every manifest the bucket makes current (publication, re-signing, rollback). */
  sequence: z.number().int().positive().optional(),
  /** After this instant the signed manifest is refused: the operator re-signs well before. */
  expires: isoInstant.optional(),
  signature: signatureSchema.optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;

export interface FileDigest {
  sha256: string;
  size: number;
}

/** Whether two digests name the same file: the one comparison of size and SHA-256. */
export const sameDigest = (a: FileDigest, b: FileDigest): boolean => a.size === b.size && a.sha256 === b.sha256;

/** Whether `bytes` are exactly the file the digest names (the size first: it costs nothing). */
export const holdsDigest = (bytes: Uint8Array, digest: FileDigest): boolean =>
  bytes.length === digest.size && sha256Hex(bytes) === digest.sha256;

export interface ManifestInput {
  version: string;
  tariffDate: string;
  generatedAt: string;
  source: string;
  counts: { products: number; barcodes: number };
  baseUrl: string;
  digests: Record<Format, FileDigest>;
  docdbVersion: string;
  provenance?: Provenance;
}

/** Builds the manifest with its fields in the spec's order. */
export function buildManifest(input: ManifestInput): Manifest {
  const base = input.baseUrl.replace(/\/+$/, '');
  const entry = (format: Format) => ({
    url: `${base}/${fileName(format)}`,
    sha256: input.digests[format].sha256,
    size: input.digests[format].size,
  });
  return {
    version: input.version,
    tariffDate: input.tariffDate,
    generatedAt: input.generatedAt,
    source: input.source,
    schemaVersion: SCHEMA_VERSION,
    counts: { products: input.counts.products, barcodes: input.counts.barcodes },
    files: {
      json: entry('json'),
      sqlite: entry('sqlite'),
      docdb: { ...entry('docdb'), docdbVersion: input.docdbVersion, schemaVersion: SCHEMA_VERSION },
    },
    ...(input.provenance ? { provenance: input.provenance } : {}),
  };
}

/** The manifest of the release itself, without what the bucket's current copy adds (sequence, expiry, signature). */
export function releaseManifestOf(manifest: Manifest): Manifest {
  const { sequence: _sequence, expires: _expires, signature: _signature, ...release } = manifest;
  return release;
}

export function renderManifest(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The manifest as a service behind `baseUrl` serves it: its files' URLs under that address (unchanged without one). */
export function withBaseUrl(baseUrl: string | undefined, manifest: Manifest): Manifest {
  const base = baseUrl?.replace(/\/+$/, '');
  if (!base) return manifest;
  const files = structuredClone(manifest.files);
  for (const format of FORMATS) files[format].url = `${base}/${fileName(format)}`;
  return { ...manifest, files };
}
