import * as z from 'zod';

/** Where a setting may come from besides `<data-dir>/config.json` (which uses its key). */
export interface SettingSource {
  env: string;
  /** The command-line option (commander's camelCase name) that sets it, where one does. */
  flag?: string;
  /** Secrets are never written in config.json nor shown in messages. */
  secret?: boolean;
}

const fromText = (value: unknown) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value);
const whole = (min: number, max = Number.MAX_SAFE_INTEGER) => {
  const error = max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
  return z.preprocess(fromText, z.number({ error }).int({ error }).min(min, { error }).max(max, { error }));
};
const flag = z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean({ error: 'true or false' }));
const httpUrl = z.string().regex(/^https?:\/\/[^/\s]+\S*$/, { error: 'an http(s) URL' });
/** A list: repeated options, or one value with the items separated by spaces or commas. */
const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((value) => (typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value), z.array(item));

/** TARIFF_TRUST_PROXY: how many proxies append to X-Forwarded-For; `true` is one, `false` none. */
const hops = z.preprocess(
  (value) => (value === 'true' || value === true ? 1 : value === 'false' || value === '' || value === false ? 0 : fromText(value)),
  z.number({ error: 'true, false or a number of proxies' }).int().min(0),
);

const ACCOUNT_TYPES = 'account types (User, Supplier, Integration) separated by commas, or none';
const ACCOUNT_TYPE = z.enum(['User', 'Supplier', 'Integration'], { error: ACCOUNT_TYPES });

/** Whole-number settings with their defaults, all with the same lower bound. */
type WholeSetting = ReturnType<ReturnType<typeof whole>['default']>;
function wholes<K extends string>(defaults: Record<K, number>, min = 1): Record<K, WholeSetting> {
  return Object.fromEntries(Object.entries(defaults).map(([key, value]) => [key, whole(min).default(value as number)])) as Record<
    K,
    WholeSetting
  >;
}

/**
 * Every setting of every command, with its type and default: what `<data-dir>/config.json` may
 * hold (by these keys), and what the environment and options set (SETTING_SOURCES). Defaults are
 * the embedded ones: a local folder, SQLite, 127.0.0.1:8080. Grouped by what they are for.
 */
export const settingsSchema = z.strictObject({
  // Where things are.
  registry: z.string().min(1, { error: 'a database URL or a file' }).optional(),
  bucket: z.string().min(1, { error: 'a bucket URI or a folder' }).optional(),
  baseUrl: httpUrl.optional(),
  ...wholes({ pgPoolSize: 10, keep: 30 }),
  // The release pipeline: the authority's documents, the guards, the downloads, S3.
  sourceUrls: list(httpUrl).default([]),
  sourcePages: list(httpUrl).default([]),
  // The categories whose list a release run must find on the pages (default: source/categories.ts, REQUIRED_BY_DEFAULT).
  categories: list(z.string().regex(/^[a-z_]+$/, { error: 'category names as the dataset spells them, e.g. cigarettes' })).optional(),
  // Hosts besides the pages' own that their links may lead to (the authority's document server).
  sourceHosts: list(z.string().regex(/^[a-z0-9.-]+(:\d+)?$/i, { error: 'a host name, e.g. www.adm.gov.it' })).default([]),
  maxShrink: z
    .preprocess(
      (value) => (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value),
      z.number({ error: 'a percentage between 0 and 100' }).min(0).max(100),
    )
    .default(20),
  // How long a writer of the bucket waits for another to finish (its writer lock) before it gives up.
  ...wholes({ bucketLockWaitSeconds: 120 }),
  // The writer lease's life: a lease stating more than an hour is not believed (publish/bucket-lease.ts).
  lockStaleSeconds: whole(1, 3600).default(120),
  // How long what a writer marks for deletion waits before a later run deletes it (docs/architecture.md,
  // "Every bucket write"); 0 only where one writer ever runs, as in tests.
  retentionHours: whole(0).default(24),
  ...wholes({ maxNotices: 20, fetchMaxBytes: 64 * 1024 * 1024, fetchMaxRedirects: 5, fetchAttempts: 4 }),
  ...wholes({ fetchConnectTimeoutMs: 10_000, fetchHeadersTimeoutMs: 30_000, fetchBodyTimeoutMs: 60_000, fetchDeadlineSeconds: 180 }),
  ...wholes({ fetchRetryBaseMs: 2_000, fetchRetryMaxMs: 60_000 }),
  ...wholes({ s3ConnectTimeoutMs: 5_000, s3IdleTimeoutMs: 15_000, s3DeadlineSeconds: 60, s3Attempts: 3 }),
  s3PathStyle: flag.default(false),
  // Signing the current manifest (docs/operations.md, "Signing releases"): the private key's file, how long a signature holds.
  signingKey: z.string().min(1, { error: 'the path of a private key file' }).optional(),
  signatureDays: whole(1, 366).default(7),
  // The service: where it listens, what it keeps, how long things last, what it allows.
  host: z.string().min(1, { error: 'an address to listen on' }).default('127.0.0.1'),
  port: whole(0, 65535).default(8080),
  workers: whole(1, 64).default(1),
  siteUrl: httpUrl.optional(),
  // Prometheus metrics on a listener of their own (docs/operations.md, "Metrics"): off unless a port is named.
  metricsPort: whole(0, 65535).optional(),
  metricsHost: z.string().min(1, { error: 'an address to listen on' }).default('127.0.0.1'),
  // What an Authorization: Bearer header carries (RFC 6750's token characters): a space could never match.
  metricsToken: z
    .string()
    .min(16, { error: 'a token of at least 16 characters' })
    .regex(/^[A-Za-z0-9\-._~+/]+=*$/, { error: 'letters, digits and - . _ ~ + / only (what a Bearer header carries), no spaces' })
    .optional(),
  ...wholes({ manifestPollMs: 5_000, cacheBytes: 64 * 1024 * 1024, staleAfterSeconds: 600, purgeIntervalSeconds: 600 }),
  ...wholes({ historyDepth: 12, historyRefreshSeconds: 60, signInLimitAddress: 5, signInLimitClient: 30 }),
  // Public catalogue pages (/prodotti, /variazioni) a client may ask for per minute, per process.
  ...wholes({ publicPagesPerMinute: 120 }),
  ...wholes({ signInTtlSeconds: 15 * 60, sessionTtlSeconds: 14 * 86_400 }, 60),
  ...wholes({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, idleTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 }),
  ...wholes({ maxConnections: 1024, shutdownGraceMs: 10_000, quorum: 2 }),
  ...wholes({ weightUser: 1, weightSupplier: 1, weightIntegration: 1, vettingDays: 7 }, 0),
  trustProxy: hops.default(0),
  signUp: z.enum(['open', 'closed'], { error: 'open or closed' }).default('open'),
  signUpApproval: z
    .preprocess(
      (value) =>
        value === 'none'
          ? []
          : typeof value === 'string'
            ? value
                .split(',')
                .map((type) => type.trim())
                .filter(Boolean)
            : value,
      z.array(ACCOUNT_TYPE, { error: ACCOUNT_TYPES }),
    )
    .default(['Integration']),
  smtpUrl: z
    .string()
    .regex(/^smtps?:\/\//, { error: 'an smtp:// or smtps:// URL' })
    .optional(),
  smtpFrom: z.string().min(3, { error: 'a sender address' }).default('Tariffa tabacchi <no-reply@localhost>'),
  // Registry backups: the age recipients they are encrypted for, and the file of the identity that opens them (a restore's).
  backupRecipients: list(z.string().regex(/^age1[02-9ac-hj-np-z]{58}$/, { error: 'age recipients (age1…)' })).default([]),
  backupIdentity: z.string().min(1, { error: 'the path of an age identity file' }).optional(),
  // tariff sync, at a point of sale.
  apiUrl: httpUrl.optional(),
  apiKey: z.string().optional(),
  syncDeadlineSeconds: whole(1).default(600),
  // The keys a till trusts to sign manifests: key id:base64, or files (a key list or a PEM public key).
  syncPublicKeys: list(z.string().min(1)).default([]),
});

export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;

/** Every setting at its default: the one definition modules and tests take their defaults from. */
export const DEFAULT_SETTINGS: Settings = settingsSchema.parse({});

/** Variables whose names do not follow from their keys (TARIFF_ and the key in capitals, words joined by _). */
const ENV_NAMES: Partial<Record<SettingKey, string>> = {
  signInTtlSeconds: 'TARIFF_SIGNIN_TTL_SECONDS',
  signInLimitAddress: 'TARIFF_SIGNIN_LIMIT_ADDRESS',
  signInLimitClient: 'TARIFF_SIGNIN_LIMIT_CLIENT',
  signUp: 'TARIFF_SIGNUP',
  signUpApproval: 'TARIFF_SIGNUP_APPROVAL',
  keepAliveTimeoutMs: 'TARIFF_KEEPALIVE_TIMEOUT_MS',
  smtpUrl: 'SMTP_URL',
  smtpFrom: 'SMTP_FROM',
  syncPublicKeys: 'TARIFF_SYNC_PUBLIC_KEY',
};

/** The settings an option of a command sets, by commander's name of the option. */
const FLAGS: Partial<Record<SettingKey, string>> = {
  ...Object.fromEntries(['bucket', 'keep', 'baseUrl', 'maxShrink', 'host', 'port', 'workers'].map((key) => [key, key])),
  sourceUrls: 'sourceUrl',
  sourcePages: 'sourcePage',
  apiUrl: 'api',
  syncPublicKeys: 'publicKey',
  backupRecipients: 'recipient',
  backupIdentity: 'identity',
};

const SECRETS = new Set<SettingKey>(['registry', 'smtpUrl', 'apiKey', 'metricsToken']);

/** The environment variable, and the option where there is one, of each setting (docs/operations.md). */
export const SETTING_SOURCES = Object.fromEntries(
  (Object.keys(settingsSchema.shape) as SettingKey[]).map((key) => [
    key,
    {
      env: ENV_NAMES[key] ?? `TARIFF_${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`,
      flag: FLAGS[key],
      secret: SECRETS.has(key),
    },
  ]),
) as Record<SettingKey, SettingSource>;
