declare module 's3rver' {
  /** The parts of s3rver's file-system store (lib/stores/filesystem.js) the tests replace. */
  export interface FilesystemStore {
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
    putObject(object: {
      bucket: string;
      key: string;
      content: Buffer | NodeJS.ReadableStream;
      metadata: Record<string, string>;
    }): Promise<{ size: number; md5: string }>;
  }

  /** The parts of s3rver's API the tests use (the package ships no types). */
  export default class S3rver {
    constructor(options: {
      port: number;
      address: string;
      silent?: boolean;
      directory: string;
      configureBuckets?: { name: string; configs?: unknown[] }[];
    });
    store: FilesystemStore;
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}

declare module 's3rver/lib/models/object.js' {
  /** An object of s3rver's: the tests use only the headers it keeps. */
  export default class S3Object {
    static ALLOWED_METADATA: string[];
  }
}
