import { z } from 'zod';

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

/**
 * Every setting of every command, with its type and default: what `<data-dir>/config.json` may
 * hold (by these keys), and what the environment and options set (SETTING_SOURCES). Defaults are
 * the embedded ones: a local folder, SQLite, 127.0.0.1:8080.
 */
export const settingsSchema = z.strictObject({
  // Where things are.
  registry: z.string().min(1, { error: 'a database URL or a file' }).optional(),
  pgPoolSize: whole(1).default(10),
  bucket: z.string().min(1, { error: 'a bucket URI or a folder' }).optional(),
  keep: whole(1).default(30),
  baseUrl: httpUrl.optional(),
  // The release pipeline.
  sourceUrls: list(httpUrl).default([]),
  sourcePages: list(httpUrl).default([]),
  maxShrink: z
    .preprocess(
      (value) => (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value),
      z.number({ error: 'a percentage between 0 and 100' }).min(0).max(100),
    )
    .default(20),
  maxNotices: whole(1).default(20),
  lockStaleSeconds: whole(1).default(120),
  fetchConnectTimeoutMs: whole(1).default(10_000),
  fetchHeadersTimeoutMs: whole(1).default(30_000),
  fetchBodyTimeoutMs: whole(1).default(60_000),
  fetchDeadlineSeconds: whole(1).default(180),
  fetchMaxBytes: whole(1).default(64 * 1024 * 1024),
  fetchMaxRedirects: whole(1).default(5),
  fetchAttempts: whole(1).default(4),
  fetchRetryBaseMs: whole(1).default(2_000),
  fetchRetryMaxMs: whole(1).default(60_000),
  s3ConnectTimeoutMs: whole(1).default(5_000),
  s3IdleTimeoutMs: whole(1).default(15_000),
  s3DeadlineSeconds: whole(1).default(60),
  s3Attempts: whole(1).default(3),
  s3PathStyle: flag.default(false),
  // The service.
  host: z.string().min(1, { error: 'an address to listen on' }).default('127.0.0.1'),
  port: whole(0, 65535).default(8080),
  workers: whole(1, 64).default(1),
  siteUrl: httpUrl.optional(),
  manifestPollMs: whole(1).default(5_000),
  cacheBytes: whole(1).default(64 * 1024 * 1024),
  staleAfterSeconds: whole(1).default(600),
  purgeIntervalSeconds: whole(1).default(600),
  historyDepth: whole(1).default(12),
  historyRefreshSeconds: whole(1).default(60),
  signInTtlSeconds: whole(60).default(15 * 60),
  sessionTtlSeconds: whole(60).default(14 * 86_400),
  signInLimitAddress: whole(1).default(5),
  signInLimitClient: whole(1).default(30),
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
  headersTimeoutMs: whole(1).default(10_000),
  requestTimeoutMs: whole(1).default(30_000),
  idleTimeoutMs: whole(1).default(120_000),
  keepAliveTimeoutMs: whole(1).default(5_000),
  maxConnections: whole(1).default(1024),
  quorum: whole(1).default(2),
  weightUser: whole(0).default(1),
  weightSupplier: whole(0).default(1),
  weightIntegration: whole(0).default(1),
  smtpUrl: z
    .string()
    .regex(/^smtps?:\/\//, { error: 'an smtp:// or smtps:// URL' })
    .optional(),
  smtpFrom: z.string().min(3, { error: 'a sender address' }).default('Tariffa tabacchi <no-reply@localhost>'),
  // tariff sync, at a point of sale.
  apiUrl: httpUrl.optional(),
  apiKey: z.string().optional(),
  syncDeadlineSeconds: whole(1).default(600),
});

export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;

const env = (name: string, option?: string, secret = false): SettingSource => ({ env: name, flag: option, secret });

/** The environment variable, and the option where there is one, of each setting (docs/operations.md). */
export const SETTING_SOURCES: Record<SettingKey, SettingSource> = {
  registry: env('TARIFF_REGISTRY', undefined, true),
  pgPoolSize: env('TARIFF_PG_POOL_SIZE'),
  bucket: env('TARIFF_BUCKET', 'bucket'),
  keep: env('TARIFF_KEEP', 'keep'),
  baseUrl: env('TARIFF_BASE_URL', 'baseUrl'),
  sourceUrls: env('TARIFF_SOURCE_URLS', 'sourceUrl'),
  sourcePages: env('TARIFF_SOURCE_PAGES', 'sourcePage'),
  maxShrink: env('TARIFF_MAX_SHRINK', 'maxShrink'),
  maxNotices: env('TARIFF_MAX_NOTICES'),
  lockStaleSeconds: env('TARIFF_LOCK_STALE_SECONDS'),
  fetchConnectTimeoutMs: env('TARIFF_FETCH_CONNECT_TIMEOUT_MS'),
  fetchHeadersTimeoutMs: env('TARIFF_FETCH_HEADERS_TIMEOUT_MS'),
  fetchBodyTimeoutMs: env('TARIFF_FETCH_BODY_TIMEOUT_MS'),
  fetchDeadlineSeconds: env('TARIFF_FETCH_DEADLINE_SECONDS'),
  fetchMaxBytes: env('TARIFF_FETCH_MAX_BYTES'),
  fetchMaxRedirects: env('TARIFF_FETCH_MAX_REDIRECTS'),
  fetchAttempts: env('TARIFF_FETCH_ATTEMPTS'),
  fetchRetryBaseMs: env('TARIFF_FETCH_RETRY_BASE_MS'),
  fetchRetryMaxMs: env('TARIFF_FETCH_RETRY_MAX_MS'),
  s3ConnectTimeoutMs: env('TARIFF_S3_CONNECT_TIMEOUT_MS'),
  s3IdleTimeoutMs: env('TARIFF_S3_IDLE_TIMEOUT_MS'),
  s3DeadlineSeconds: env('TARIFF_S3_DEADLINE_SECONDS'),
  s3Attempts: env('TARIFF_S3_ATTEMPTS'),
  s3PathStyle: env('TARIFF_S3_PATH_STYLE'),
  host: env('TARIFF_HOST', 'host'),
  port: env('TARIFF_PORT', 'port'),
  workers: env('TARIFF_WORKERS', 'workers'),
  siteUrl: env('TARIFF_SITE_URL'),
  manifestPollMs: env('TARIFF_MANIFEST_POLL_MS'),
  cacheBytes: env('TARIFF_CACHE_BYTES'),
  staleAfterSeconds: env('TARIFF_STALE_AFTER_SECONDS'),
  purgeIntervalSeconds: env('TARIFF_PURGE_INTERVAL_SECONDS'),
  historyDepth: env('TARIFF_HISTORY_DEPTH'),
  historyRefreshSeconds: env('TARIFF_HISTORY_REFRESH_SECONDS'),
  signInTtlSeconds: env('TARIFF_SIGNIN_TTL_SECONDS'),
  sessionTtlSeconds: env('TARIFF_SESSION_TTL_SECONDS'),
  signInLimitAddress: env('TARIFF_SIGNIN_LIMIT_ADDRESS'),
  signInLimitClient: env('TARIFF_SIGNIN_LIMIT_CLIENT'),
  trustProxy: env('TARIFF_TRUST_PROXY'),
  signUp: env('TARIFF_SIGNUP'),
  signUpApproval: env('TARIFF_SIGNUP_APPROVAL'),
  headersTimeoutMs: env('TARIFF_HEADERS_TIMEOUT_MS'),
  requestTimeoutMs: env('TARIFF_REQUEST_TIMEOUT_MS'),
  idleTimeoutMs: env('TARIFF_IDLE_TIMEOUT_MS'),
  keepAliveTimeoutMs: env('TARIFF_KEEPALIVE_TIMEOUT_MS'),
  maxConnections: env('TARIFF_MAX_CONNECTIONS'),
  quorum: env('TARIFF_QUORUM'),
  weightUser: env('TARIFF_WEIGHT_USER'),
  weightSupplier: env('TARIFF_WEIGHT_SUPPLIER'),
  weightIntegration: env('TARIFF_WEIGHT_INTEGRATION'),
  smtpUrl: env('SMTP_URL', undefined, true),
  smtpFrom: env('SMTP_FROM'),
  apiUrl: env('TARIFF_API_URL', 'api'),
  apiKey: env('TARIFF_API_KEY', undefined, true),
  syncDeadlineSeconds: env('TARIFF_SYNC_DEADLINE_SECONDS'),
};
