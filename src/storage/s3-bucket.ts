import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { DEFAULT_SETTINGS, type Settings } from '../config/settings.ts';
import { errors, isTariffError } from '../errors.ts';
import type { Bucket, BucketObject, ConditionalWrite, CreateOnce, TaggedObject } from './bucket.ts';

/** How long S3 calls may take (docs/operations.md): a store that accepts a connection and never answers cannot hold a run. */
export interface S3Timeouts {
  connectMs: number;
  /** Longest silence on a connection while a request is under way. */
  idleMs: number;
  /** One whole call (tries included), reading a small object's body included. */
  deadlineMs: number;
  /** Tries per call, the first included (the SDK's backoff between them). */
  attempts: number;
}

/** The timeouts the settings give (TARIFF_S3_*), at their defaults unless set. */
export const s3Timeouts = (settings: Settings): S3Timeouts => ({
  connectMs: settings.s3ConnectTimeoutMs,
  idleMs: settings.s3IdleTimeoutMs,
  deadlineMs: settings.s3DeadlineSeconds * 1000,
  attempts: settings.s3Attempts,
});

export interface S3BucketOptions {
  bucket: string;
  prefix: string;
  /** The SDK's own variables (AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, AWS_REGION …), from the environment at the edge. */
  env: NodeJS.ProcessEnv;
  /** Path-style addressing (`http://host/bucket/key`), as MinIO and Ceph usually want (setting s3PathStyle). */
  pathStyle?: boolean;
  /** Overrides for tests; production takes everything from the standard AWS chain. */
  client?: S3ClientConfig;
  timeouts?: S3Timeouts;
}

/**
 * A bucket in S3-compatible object storage (AWS S3, MinIO, Ceph, R2) through the AWS SDK v3.
 * Endpoint: the SDK's own AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL; path-style addressing with
 * the s3PathStyle setting (TARIFF_S3_PATH_STYLE=true); credentials and region: the standard AWS chain (env, profile,
 * instance role), region defaulting to us-east-1 for stores that ignore it.
 */
export class S3Bucket implements Bucket {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly timeouts: S3Timeouts;
  /** Whether this store wants If-Match's tag bare (Ceph RGW 16), learnt from its first refusal of a tag it still carries. */
  private ifMatchUnquoted = false;

  constructor(options: S3BucketOptions) {
    this.timeouts = options.timeouts ?? s3Timeouts(DEFAULT_SETTINGS);
    this.bucket = options.bucket;
    this.prefix = options.prefix === '' ? '' : `${options.prefix.replace(/\/+$/, '')}/`;
    this.description = `s3://${this.bucket}/${this.prefix}`;
    const env = options.env;
    // The variables are read from the environment passed in (process.env at the edge) so that
    // tests and embedding code can point at a store; without them the SDK's own chain applies.
    const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
    const credentials =
      env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN }
        : undefined;
    this.client = new S3Client({
      ...(endpoint ? { endpoint } : {}),
      ...(credentials ? { credentials } : {}),
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      forcePathStyle: options.pathStyle ?? false,
      maxAttempts: this.timeouts.attempts,
      // socketTimeout is the SDK's silence limit, which destroys the connection; its requestTimeout only logs a warning.
      requestHandler: { connectionTimeout: this.timeouts.connectMs, socketTimeout: this.timeouts.idleMs },
      // Checksums only where S3 requires them: older MinIO, Ceph and R2 reject the newer headers,
      // and every object is verified by its SHA-256 after upload anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...options.client,
    });
  }

  get(key: string): Promise<Buffer | null> {
    return this.call('read', key, async (signal) => {
      const object = await this.getObject(key, signal);
      if (!object) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of object.body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    });
  }

  getTagged(key: string): Promise<TaggedObject | null> {
    return this.call('read', key, (signal) => this.readTagged(key, signal));
  }

  /**
   * Private or not, alike: an S3 bucket is private unless its policy says otherwise (CreateOptions).
   * A refusal is believed only once the object is read and found not to hold these bytes (a lost
   * answer, retried by the SDK, meets this very write: recognisedAsOwn) and not to carry `expected`
   * still (a store that refused its own tag as spelt: tryOtherSpelling).
   */
  putIfUnchanged(key: string, data: Uint8Array, contentType: string, expected: string | null): Promise<ConditionalWrite> {
    return this.recognisedAsOwn(key, data, 'written', () =>
      this.call('write', key, async (signal) => {
        const condition = expected === null ? { IfNoneMatch: '*' } : { IfMatch: spellTag(expected, this.ifMatchUnquoted) };
        if (await this.putUnlessRefused(key, data, contentType, signal, condition)) return 'written';
        const there = await this.readTagged(key, signal);
        if (there?.bytes.equals(data)) return 'written';
        if (expected === null || !there || !sameTag(there.tag, expected)) return 'conflict';
        return this.tryOtherSpelling(key, data, contentType, expected, signal);
      }),
    );
  }

  /**
   * The object still carries `expected`, yet the store refused it: it wants the tag spelt the other
   * way (Ceph RGW 16 refuses the quoted form AWS and its SDK send, and takes it bare). The other
   * spelling is tried once and, if taken, kept for this bucket's later swaps; refused too while the
   * tag still holds, the store cannot swap at all (`bucket_unsupported`).
   */
  private async tryOtherSpelling(
    key: string,
    data: Uint8Array,
    contentType: string,
    expected: string,
    signal: AbortSignal,
  ): Promise<ConditionalWrite> {
    const other = !this.ifMatchUnquoted;
    if (await this.putUnlessRefused(key, data, contentType, signal, { IfMatch: spellTag(expected, other) })) {
      this.ifMatchUnquoted = other;
      return 'written';
    }
    const there = await this.readTagged(key, signal);
    if (there?.bytes.equals(data)) {
      this.ifMatchUnquoted = other;
      return 'written';
    }
    if (there && sameTag(there.tag, expected))
      throw errors.bucketUnsupported(
        `${this.description}${key}`,
        "refuses If-Match with the object's own entity tag, quoted and bare alike",
      );
    return 'conflict';
  }

  /** A conditional PUT: true when written, false when the store refused its condition. */
  private async putUnlessRefused(
    key: string,
    data: Uint8Array,
    contentType: string,
    signal: AbortSignal,
    condition: { IfMatch?: string; IfNoneMatch?: string },
  ): Promise<boolean> {
    try {
      await this.putObject(key, data, contentType, signal, condition);
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  private async readTagged(key: string, signal: AbortSignal): Promise<TaggedObject | null> {
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }), {
        abortSignal: signal,
      });
      const bytes = Buffer.from(await response.Body!.transformToByteArray());
      if (!response.ETag) throw new Error('the store gave no ETag: it cannot take conditional writes');
      return { bytes, tag: response.ETag };
    } catch (error) {
      if (isMissingKey(error)) return null;
      throw error;
    }
  }

  /**
   * A write whose answer never came (the store went silent, the connection dropped after the
   * SDK's last try) may have landed all the same: the object is read once, and holding exactly
   * these bytes, the write is this run's own. Otherwise the failure stands as it was.
   */
  private async recognisedAsOwn<T extends string, F extends string>(
    key: string,
    data: Uint8Array,
    found: F,
    write: () => Promise<T>,
  ): Promise<T | F> {
    try {
      return await write();
    } catch (error) {
      if (!isTariffError(error, 'bucket_failed')) throw error;
      const there = await this.get(key).catch(() => null);
      if (there?.equals(data)) return found;
      throw error;
    }
  }

  create(key: string, data: Uint8Array, contentType: string): Promise<CreateOnce> {
    // Found holding these bytes, it may be this very create's (a try whose answer was lost) or an
    // object written before and marked since: `found` (bucket.ts, CreateOnce), the caller decides.
    return this.recognisedAsOwn(key, data, 'found', () =>
      this.call('write', key, async (signal) => {
        if (await this.putUnlessRefused(key, data, contentType, signal, { IfNoneMatch: '*' })) return 'written';
        return (await this.readTagged(key, signal))?.bytes.equals(data) ? 'found' : 'exists';
      }),
    );
  }

  overwrite(key: string, data: Uint8Array, contentType: string, expected: string): Promise<ConditionalWrite> {
    return this.putIfUnchanged(key, data, contentType, expected);
  }

  modified(key: string): Promise<Date | null> {
    return this.call('read', key, async (signal) => {
      try {
        const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }), {
          abortSignal: signal,
        });
        return head.LastModified ?? null;
      } catch (error) {
        if (isMissingKey(error)) return null;
        throw error;
      }
    });
  }

  /** The deadline covers the call up to the first byte; the body then streams for as long as the reader reads. */
  open(key: string): Promise<BucketObject | null> {
    return this.call('read', key, (signal) => this.getObject(key, signal));
  }

  private async getObject(key: string, signal: AbortSignal): Promise<BucketObject | null> {
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }), {
        abortSignal: signal,
      });
      return { size: response.ContentLength ?? 0, body: response.Body as Readable };
    } catch (error) {
      if (isMissingKey(error)) return null;
      throw error;
    }
  }

  /** Unconditional write, for tests that damage a bucket as a disk or an operator would: no writer of the product calls it. */
  put(key: string, data: Uint8Array, contentType: string): Promise<void> {
    return this.call('write', key, (signal) => this.putObject(key, data, contentType, signal));
  }

  private async putObject(
    key: string,
    data: Uint8Array,
    contentType: string,
    signal: AbortSignal,
    conditions: { IfMatch?: string; IfNoneMatch?: string } = {},
  ): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.prefix + key,
        Body: data,
        ContentType: contentType,
        ContentLength: data.length,
        ...conditions,
      }),
      { abortSignal: signal },
    );
  }

  list(prefix: string): Promise<string[]> {
    return this.call('list', prefix, async (signal) => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token }),
          { abortSignal: signal },
        );
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key.slice(this.prefix.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    });
  }

  delete(keys: string[]): Promise<void> {
    return this.call('delete', keys[0] ?? '', async (signal) => {
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000);
        const response = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((key) => ({ Key: this.prefix + key })), Quiet: true },
          }),
          { abortSignal: signal },
        );
        if (response.Errors?.length) throw new Error(`cannot delete ${response.Errors[0]!.Key}: ${response.Errors[0]!.Message}`);
      }
    });
  }

  /**
   * Runs one call under the deadline and turns every failure into `bucket_failed`, naming the
   * bucket, the operation and what to do: an operator reads it in a cron mail, not a stack trace.
   */
  private async call<T>(operation: string, key: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${Math.round(this.timeouts.deadlineMs / 1000)} s`)),
      this.timeouts.deadlineMs,
    );
    try {
      return await work(controller.signal);
    } catch (error) {
      if (controller.signal.aborted)
        throw errors.bucketFailed(
          `${this.description}${key}`,
          `${operation}: no answer within ${Math.round(this.timeouts.deadlineMs / 1000)} s (TARIFF_S3_DEADLINE_SECONDS)`,
          REMEDIES.network,
        );
      if ((error as { name?: string }).name === 'TimeoutError')
        throw errors.bucketFailed(
          `${this.description}${key}`,
          `${operation}: the store went silent for ${this.timeouts.idleMs} ms (TARIFF_S3_IDLE_TIMEOUT_MS)`,
          REMEDIES.network,
        );
      // Named already (a store found to lack a condition): said as it is.
      if (isTariffError(error)) throw error;
      throw describeS3Error(error, `${this.description}${key}`, operation);
    } finally {
      // For open() the call ends at the first byte: the body then streams without the deadline.
      clearTimeout(timer);
    }
  }
}

const REMEDIES = {
  credentials:
    'Check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the instance role) and the bucket policy; the current release was not changed.',
  bucket: 'The bucket does not exist: create it, or fix the bucket in --bucket / TARIFF_BUCKET; the current release was not changed.',
  network:
    'Check AWS_ENDPOINT_URL(_S3) and that the store is reachable; the current release was not changed, and the next run tries again.',
};

/** An S3 failure as the operator needs it: what, where, and the remedy for its kind. */
function describeS3Error(error: unknown, where: string, operation: string): Error {
  const e = error as {
    name?: string;
    Code?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    cause?: { code?: string };
  };
  const name = e.name ?? e.Code ?? '';
  const status = e.$metadata?.httpStatusCode;
  const detail = `${operation} failed: ${[name, status ? `HTTP ${status}` : '', e.code ?? e.cause?.code ?? ''].filter(Boolean).join(', ')}${e.message && e.message !== name ? ` (${e.message})` : ''}`;
  // No credentials at all (CredentialsProviderError: nothing in the environment, profile or role) is a credentials matter too.
  if (
    /InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|Forbidden|ExpiredToken|InvalidToken|CredentialsProviderError/.test(name) ||
    status === 403
  )
    return errors.bucketFailed(where, detail, REMEDIES.credentials);
  if (name === 'NoSuchBucket') return errors.bucketFailed(where, detail, REMEDIES.bucket);
  return errors.bucketFailed(where, detail, REMEDIES.network);
}

/**
 * The store refused a conditional write: the object changed (412), or another conditional write
 * to it was under way (409 ConditionalRequestConflict, AWS's word for a race it lost).
 */
function isConditionFailed(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  const name = e.name ?? e.Code;
  return name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || e.$metadata?.httpStatusCode === 412;
}

/** A missing object, not a missing bucket: only the first means "nothing there yet". */
function isMissingKey(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  const name = e.name ?? e.Code;
  if (name === 'NoSuchBucket') return false;
  return name === 'NoSuchKey' || name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/** Two spellings of one entity tag (quoted or bare, weak or strong) are the same tag. */
function sameTag(a: string, b: string): boolean {
  return bareTag(a) === bareTag(b);
}

/** A tag as sent in If-Match: quoted as RFC 9110 and AWS spell it, or bare. */
const spellTag = (tag: string, bare: boolean) => (bare ? bareTag(tag) : `"${bareTag(tag)}"`);

/** An entity tag without its quotes or weak mark. */
const bareTag = (tag: string) => tag.replace(/^W\//, '').replace(/^"|"$/g, '');
