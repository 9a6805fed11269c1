import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import { verifyRelease } from '../../release/verify-release.ts';
import { readCurrentManifest, readReleaseManifest } from '../../publish/bucket-releases.ts';
import { verifyBucketRelease } from '../../publish/check-bucket-release.ts';
import { openBucket } from '../../storage/open-bucket.ts';
import type { CommandContext, Runner } from '../context.ts';

/** A release version, as the bucket keeps it (YYYYMMDD.n). */
const VERSION = /^\d{8}\.\d+$/;

/** The release a bucket holds, fetched and checked as a directory is (check-bucket-release.ts). */
async function verifyInBucket(ctx: CommandContext, options: { bucket?: string }, version: string | undefined) {
  // The bucket --bucket, TARIFF_BUCKET or config.json names, as for `tariff releases`.
  const settings = await ctx.settings(options);
  const bucket = await openBucket(settings.bucket, { dataDir: ctx.dataDir, settings, env: ctx.io.env });
  if (version !== undefined && !VERSION.test(version)) throw errors.usage(`${version} is not a release version (YYYYMMDD.n)`);
  const manifest = version ? await readReleaseManifest(bucket, version) : await readCurrentManifest(bucket);
  if (!manifest)
    throw errors.releaseUnreadable(
      `${bucket.description}${version ? `releases/${version}/` : ''}`,
      version ? 'no manifest for this version' : 'nothing is published',
    );
  return verifyBucketRelease(bucket, manifest);
}

export function registerVerify(program: Command, run: Runner): void {
  program
    .command('verify')
    .description('Re-hash a release (a directory, or what a bucket holds) against its manifest and open every format with its own engine')
    .argument('[dir-or-version]', 'release directory (holding manifest.json), or a version the bucket keeps (default: its current one)')
    .option('--bucket <uri>', 'the bucket: s3://bucket/prefix or a folder (env TARIFF_BUCKET, default <data-dir>/bucket)')
    .addHelpText(
      'after',
      '\nExit status: 0 when every check holds, 1 otherwise.\n\nExamples:\n  tariff verify var/release\n  tariff verify --bucket s3://tariff-releases/prod            # the current release\n  tariff verify --bucket s3://tariff-releases/prod 20261101.2',
    )
    .action(
      run(async (ctx, target: string | undefined, options: { bucket?: string }) => {
        // A folder is a release directory; a version, or nothing, is what the bucket holds.
        const inBucket = options.bucket !== undefined || target === undefined || VERSION.test(target);
        const where = inBucket ? `${options.bucket ?? 'the bucket'} ${target ?? 'current'}` : target!;
        const report = inBucket ? await verifyInBucket(ctx, options, target) : await verifyRelease(target!);
        const dir = where;
        if (ctx.json) {
          ctx.result(report);
          return report.ok ? 0 : 1;
        }
        if (!report.ok) throw inBucket ? errors.bucketVerifyFailed(dir, report.problems) : errors.verifyFailed(dir, report.problems);
        const counts = report.checked[0]!;
        ctx.result(
          report,
          `ok ${report.version}: json, sqlite and docdb match the manifest and hold the same ${counts.products} products and ${counts.barcodes} barcodes`,
        );
      }),
    );
}
