import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import type { CommandFlags, Runner } from '../context.ts';
import { BUCKET_OPTION, KEEP_OPTION, withOptions } from '../shared-options.ts';
import { isReleaseVersion } from '../../release/release-version.ts';

export function registerPublish(program: Command, run: Runner): void {
  withOptions(program.command('publish'), BUCKET_OPTION, KEEP_OPTION)
    .description('Verify a release directory, upload it to the bucket, check what the bucket holds, then make it current')
    .argument('<dir>', 'release directory written by tariff build')
    .option('--dry-run', 'verify the folder and say what would be uploaded, switched and pruned, changing nothing')
    .option(
      '--sources <dir>',
      "a folder of the release's documents by SHA-256 (default: the folder's own sources/, then the data dir's snapshots)",
    )
    .option('--without-sources', 'publish even when a document it was built from is nowhere at hand: the bucket then cannot rebuild it')
    .addHelpText(
      'after',
      '\nRe-publishing the current release does nothing when the bucket holds it whole, and writes its files again when it does not (a repair). A failure before the switch leaves the previous release current.\n\nExample:\n  tariff publish var/release --bucket s3://tariff-releases/prod',
    )
    .action(
      run(async (ctx, dir: string, options: { dryRun?: boolean; sources?: string; withoutSources?: boolean }) => {
        // Loaded by a run, not by --help or a mistyped option.
        const [{ runPublish }, { dryRunLine }, { StepReporter }] = await Promise.all([
          import('../../pipeline/run-publish.ts'),
          import('../../publish/plan-publication.ts'),
          import('../step-reporter.ts'),
        ]);
        const reporter = new StepReporter(ctx);
        const settings = await ctx.settings(options);
        const { result, version, bucket, plan } = await runPublish({
          ...ctx.writer(settings),
          env: ctx.io.env,
          now: ctx.io.now,
          dir,
          dryRun: options.dryRun,
          sources: options.sources,
          withoutSources: options.withoutSources,
          report: reporter.step,
        });
        reporter.stop();
        if (!result) {
          return ctx.result({ status: 'dry-run', version, bucket, plan }, dryRunLine(plan, ` in ${bucket}`));
        }
        const human =
          result.status === 'already-current'
            ? `${result.version} (already current)`
            : result.status === 'repaired'
              ? `${result.version} (already current; repaired: ${result.repaired!.join('; ')})`
              : result.status === 're-signed'
                ? `${result.version} (already current; re-signed until ${result.expires})`
                : result.version;
        ctx.result({ ...result, bucket }, human);
      }),
    );

  program
    .command('rollback')
    .description('Make an older release kept in the bucket current again')
    .argument('<version>', 'a kept version, e.g. 20261101.2 (see tariff releases)')
    .option(...BUCKET_OPTION)
    .addHelpText('after', '\nExample:\n  tariff rollback 20261101.2 --bucket s3://tariff-releases/prod')
    .action(
      run(async (ctx, version: string, options: CommandFlags) => {
        if (!isReleaseVersion(version)) throw errors.usage(`${version} is not a version (YYYYMMDD.n)`);
        const bucket = await ctx.bucket(options);
        const [{ signingOf }, { rollbackRelease }] = await Promise.all([
          import('../../publish/signing-key-file.ts'),
          import('../../publish/bucket-releases.ts'),
        ]);
        const signing = await signingOf(await ctx.settings(), ctx.io.now);
        const result = await ctx.asBucketWriter(bucket, 'rollback', (leased) => rollbackRelease(leased, version, signing));
        const human =
          (result.previousVersion === result.version
            ? `${result.version} is already current`
            : `${result.version} is current (was ${result.previousVersion ?? 'none'})`) +
          (result.expires ? `, signed until ${result.expires}` : '');
        ctx.result({ ...result, bucket: bucket.description }, human);
      }),
    );

  program
    .command('releases')
    .description('List the releases kept in the bucket, oldest first, marking the current one')
    .option(...BUCKET_OPTION)
    .addHelpText('after', '\nExample:\n  tariff releases --bucket s3://tariff-releases/prod')
    .action(
      run(async (ctx, options: CommandFlags) => {
        const bucket = await ctx.bucket(options);
        const { listReleases } = await import('../../publish/bucket-releases.ts');
        const listing = await listReleases(bucket);
        const lines = listing.versions.map((v) => `${v}${v === listing.current ? '  (current)' : ''}`);
        if (listing.marked.length > 0)
          lines.push(
            `marked for removal (no longer kept; deleted by a run once TARIFF_RETENTION_HOURS have passed): ${listing.marked.join(', ')}`,
          );
        if (listing.incomplete.length > 0)
          lines.push(
            `incomplete (left by a crashed or refused run; marked, then removed by later publishes): ${listing.incomplete.join(', ')}`,
          );
        ctx.result({ ...listing, bucket: bucket.description }, lines.join('\n') || 'no release');
      }),
    );
}
