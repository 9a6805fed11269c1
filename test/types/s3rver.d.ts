declare module 's3rver' {
  /** The parts of s3rver's API the tests use (the package ships no types). */
  export default class S3rver {
    constructor(options: {
      port: number;
      address: string;
      silent?: boolean;
      directory: string;
      configureBuckets?: { name: string; configs?: unknown[] }[];
    });
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
