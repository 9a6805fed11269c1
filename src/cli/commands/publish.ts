import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import { DEFAULT_KEEP, listReleases, publishRelease, rollbackRelease, type ReleaseFiles } from '../../publish/publish-release.ts';
import { fileName, FORMATS, type Format } from '../../release/manifest.ts';
import { verifyRelease } from '../../release/verify-release.ts';
import { openBucket } from '../../storage/open-bucket.ts';
import { positiveInteger, readConfigFile } from '../../config/load-settings.ts';
import type { CommandContext, Runner } from '../context.ts';
import { StepReporter } from '../step-reporter.ts';

export interface BucketOptions {
  bucket?: string;
  keep?: string;
}

export const BUCKET_OPTION = [
  '--bucket <uri>',
  'bucket: s3://bucket/prefix or a folder (env TARIFF_BUCKET, default <data-dir>/bucket)',
] as const;
export const KEEP_OPTION = ['--keep <n>', `releases kept in the bucket (env TARIFF_KEEP, default ${DEFAULT_KEEP})`] as const;

/** The bucket and retention named by the options, the environment or config.json, in that order. */
export async function bucketSettings(ctx: CommandContext, options: BucketOptions) {
  const config = await readConfigFile(ctx.dataDir);
  const bucket = await openBucket(options.bucket ?? ctx.io.env.TARIFF_BUCKET ?? config.bucket, { dataDir: ctx.dataDir, env: ctx.io.env });
  const keep =
    positiveInteger(options.keep, '--keep') ?? positiveInteger(ctx.io.env.TARIFF_KEEP, 'TARIFF_KEEP') ?? config.keep ?? DEFAULT_KEEP;
  return { bucket, keep, config };
}

/** Reads a verified release directory into memory for publishing. */
export async function readReleaseFiles(dir: string): Promise<ReleaseFiles> {
  const report = await verifyRelease(dir);
  if (!report.ok) throw errors.verifyFailed(dir, report.problems);
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  const files = Object.fromEntries(
    await Promise.all(FORMATS.map(async (format) => [format, await readFile(join(dir, fileName(format)))])),
  ) as Record<Format, Buffer>;
  return { manifest, files };
}

export function registerPublish(program: Command, run: Runner): void {
  program
    .command('publish')
    .description('Verify a release directory, upload it to the bucket, check what the bucket holds, then make it current')
    .argument('<dir>', 'release directory written by tariff build')
    .option(...BUCKET_OPTION)
    .option(...KEEP_OPTION)
    .addHelpText(
      'after',
      '\nRe-publishing the current release does nothing when the bucket holds it whole, and writes its files again when it does not (a repair). A failure before the switch leaves the previous release current.\n\nExample:\n  tariff publish var/release --bucket s3://tariff-releases/prod',
    )
    .action(
      run(async (ctx, dir: string, options: BucketOptions) => {
        const { bucket, keep } = await bucketSettings(ctx, options);
        const release = await readReleaseFiles(dir);
        const reporter = new StepReporter(ctx);
        const result = await publishRelease(bucket, release, { keep, onStep: reporter.publishStep(FORMATS.length) });
        reporter.stop();
        const human =
          result.status === 'already-current'
            ? `${result.version} (already current)`
            : result.status === 'repaired'
              ? `${result.version} (already current; repaired: ${result.repaired!.join('; ')})`
              : result.version;
        ctx.result({ ...result, bucket: bucket.description }, human);
      }),
    );

  program
    .command('rollback')
    .description('Make an older release kept in the bucket current again')
    .argument('<version>', 'a kept version, e.g. 20261101.2 (see tariff releases)')
    .option(...BUCKET_OPTION)
    .addHelpText('after', '\nExample:\n  tariff rollback 20261101.2 --bucket s3://tariff-releases/prod')
    .action(
      run(async (ctx, version: string, options: BucketOptions) => {
        if (!/^\d{8}\.\d+$/.test(version)) throw errors.usage(`${version} is not a version (YYYYMMDD.n)`);
        const { bucket } = await bucketSettings(ctx, options);
        const result = await rollbackRelease(bucket, version);
        ctx.result({ ...result, bucket: bucket.description }, `${result.version} is current (was ${result.previousVersion ?? 'none'})`);
      }),
    );

  program
    .command('releases')
    .description('List the releases kept in the bucket, oldest first, marking the current one')
    .option(...BUCKET_OPTION)
    .addHelpText('after', '\nExample:\n  tariff releases --bucket s3://tariff-releases/prod')
    .action(
      run(async (ctx, options: BucketOptions) => {
        const { bucket } = await bucketSettings(ctx, options);
        const listing = await listReleases(bucket);
        const lines = listing.versions.map((v) => `${v}${v === listing.current ? '  (current)' : ''}`);
        if (listing.incomplete.length > 0)
          lines.push(`incomplete (left by a crashed run, removed by the next publish): ${listing.incomplete.join(', ')}`);
        ctx.result({ ...listing, bucket: bucket.description }, lines.join('\n') || 'no release');
      }),
    );
}
