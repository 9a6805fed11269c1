import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import { verifyRelease } from '../../release/verify-release.ts';
import { readCurrentManifest, readReleaseManifest } from '../../publish/publish-release.ts';
import { verifyBucketRelease } from '../../publish/check-bucket-release.ts';
import { openBucket } from '../../storage/open-bucket.ts';
import type { CommandContext, Runner } from '../context.ts';

/** The release a bucket holds, fetched and checked as a directory is (check-bucket-release.ts). */
async function verifyInBucket(ctx: CommandContext, uri: string, version: string | undefined) {
  const bucket = await openBucket(uri, { dataDir: ctx.dataDir, settings: await ctx.settings(), env: ctx.io.env });
  if (version !== undefined && !/^\d{8}\.\d+$/.test(version)) throw errors.usage(`${version} is not a release version (YYYYMMDD.n)`);
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
    .argument('[dir-or-version]', 'release directory (holding manifest.json); with --bucket, a kept version (default: the current one)')
    .option('--bucket <uri>', 'check the release as this bucket holds it: s3://bucket/prefix or a folder')
    .addHelpText(
      'after',
      '\nExit status: 0 when every check holds, 1 otherwise.\n\nExamples:\n  tariff verify var/release\n  tariff verify --bucket s3://tariff-releases/prod            # the current release\n  tariff verify --bucket s3://tariff-releases/prod 20261101.2',
    )
    .action(
      run(async (ctx, target: string | undefined, options: { bucket?: string }) => {
        if (!options.bucket && !target) throw errors.usage('give a release directory, or --bucket <uri> [version]');
        const where = options.bucket ? `${options.bucket} ${target ?? 'current'}` : target!;
        const report = options.bucket ? await verifyInBucket(ctx, options.bucket, target) : await verifyRelease(target!);
        const dir = where;
        if (ctx.json) {
          ctx.result(report);
          return report.ok ? 0 : 1;
        }
        if (!report.ok) throw errors.verifyFailed(dir, report.problems);
        const counts = report.checked[0]!;
        ctx.result(
          report,
          `ok ${report.version}: json, sqlite and docdb match the manifest and hold the same ${counts.products} products and ${counts.barcodes} barcodes`,
        );
      }),
    );
}
