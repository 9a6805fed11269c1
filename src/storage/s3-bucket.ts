import type { Readable } from 'node:stream';
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { Bucket, BucketObject } from './bucket.ts';

export interface S3BucketOptions {
  bucket: string;
  prefix: string;
  env: NodeJS.ProcessEnv;
  /** Overrides for tests; production takes everything from the standard AWS chain. */
  client?: S3ClientConfig;
}

/**
 * A bucket in S3-compatible object storage (AWS S3, MinIO, Ceph, R2) through the AWS SDK v3.
 * Endpoint: the SDK's own AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL; path-style addressing with
 * TARIFF_S3_PATH_STYLE=true; credentials and region: the standard AWS chain (env, profile,
 * instance role), region defaulting to us-east-1 for stores that ignore it.
 */
export class S3Bucket implements Bucket {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3BucketOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix === '' ? '' : `${options.prefix.replace(/\/+$/, '')}/`;
    this.description = `s3://${this.bucket}/${this.prefix}`;
    const env = options.env;
    // The variables are read from the environment passed in (process.env at the edge) so that
    // tests and embedding code can point at a store; without them the SDK's own chain applies.
    const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
    const credentials = env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN }
      : undefined;
    this.client = new S3Client({
      ...(endpoint ? { endpoint } : {}),
      ...(credentials ? { credentials } : {}),
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      forcePathStyle: env.TARIFF_S3_PATH_STYLE === 'true',
      // Checksums only where S3 requires them: older MinIO, Ceph and R2 reject the newer headers,
      // and every object is verified by its SHA-256 after upload anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...options.client,
    });
  }

  async get(key: string): Promise<Buffer | null> {
    const object = await this.open(key);
    if (!object) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async open(key: string): Promise<BucketObject | null> {
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      return { size: response.ContentLength ?? 0, body: response.Body as Readable };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async put(key: string, data: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: data, ContentType: contentType, ContentLength: data.length }));
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key.slice(this.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const response = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((key) => ({ Key: this.prefix + key })), Quiet: true } }));
      if (response.Errors?.length) throw new Error(`cannot delete ${response.Errors[0]!.Key}: ${response.Errors[0]!.Message}`);
    }
  }
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}
