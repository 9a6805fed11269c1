import { describe, it } from 'vitest';

/**
 * Whether this is the S3 step (vitest project `s3`, `npm run test:s3`): every test on the real S3
 * server, Ceph's RADOS Gateway, out of the inner loop (npm test) as a heavy proof. A file with a
 * few S3 tests among others is loaded by both: its S3 tests run here, the others in npm test.
 */
export const inS3Step = process.env.TARIFF_TEST_STEP === 's3';

/** Tests on the real S3 server, in a file npm test loads too: run by the S3 step only. */
export const describeS3 = describe.runIf(inS3Step);
export const itS3 = it.runIf(inS3Step);

/** The other tests of such a file: run by npm test only. */
export const describeLocal = describe.skipIf(inS3Step);
export const itLocal = it.skipIf(inS3Step);
