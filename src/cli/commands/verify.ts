import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { errors } from '../../errors.ts';
import type { CommandContext, Runner } from '../context.ts';
import { isReleaseVersion } from '../../release/release-version.ts';

/** The release a bucket holds, fetched and checked as a directory is (check-bucket-release.ts). */
async function verifyInBucket(
  ctx: CommandContext,
  options: { bucket?: string; acceptMissingSources?: boolean },
  version: string | undefined,
) {
  // The bucket --bucket, TARIFF_BUCKET or config.json names, as for `tariff releases`.
  const bucket = await ctx.bucket(options);
  if (version !== undefined && !isReleaseVersion(version)) throw errors.usage(`${version} is not a release version (YYYYMMDD.n)`);
  // Loaded by a check of a bucket, not by --help or a check of a folder.
  const [
    { readCurrentManifest, readReleaseManifest },
    { verifyBucketRelease },
    { currentSignature },
    { sourceProblems },
    { bucketStateProblems },
  ] = await Promise.all([
    import('../../publish/bucket-releases.ts'),
    import('../../publish/check-bucket-release.ts'),
    import('../../publish/current-signing.ts'),
    import('../../pipeline/source-retention.ts'),
    import('../../pipeline/bucket-problems.ts'),
  ]);
  const manifest = version ? await readReleaseManifest(bucket, version) : await readCurrentManifest(bucket);
  if (!manifest)
    throw errors.releaseUnreadable(
      `${bucket.description}${version ? `releases/${version}/` : ''}`,
      version ? 'no manifest for this version' : 'nothing is published',
    );
  const report = await verifyBucketRelease(bucket, manifest);
  // The current manifest is the one clients take: its signature and expiry are checked as theirs are.
  // A key list that cannot be read is one problem among the others, not the end of the check.
  const signing = version
    ? { problems: [], notes: [] }
    : await currentSignature(bucket, manifest, ctx.io.now()).catch((error: unknown) => ({
        problems: [(error as Error).message],
        notes: [],
      }));
  const signature = signing.problems;
  // A key listed and not yet used: said, not a failure (current-signing.ts).
  for (const note of signing.notes) ctx.info(`note: ${note}`);
  // The documents the kept releases were built from: what lets anyone build them again from the bucket alone.
  const missing = await sourceProblems(bucket);
  // Published without its documents (--without-sources): a warning the operator may accept, not a damaged release.
  if (options.acceptMissingSources) for (const line of missing) ctx.warn(`${line} (accepted: --accept-missing-sources)`);
  const sources = options.acceptMissingSources ? [] : missing;
  // What every reader trips on: the current release's own manifest, the history, the key list.
  const state = version ? [] : await bucketStateProblems(bucket, manifest);
  sources.push(...state);
  const problems = [...report.problems, ...signature, ...sources];
  return { ...report, ok: report.ok && signature.length === 0 && sources.length === 0, problems, signature, notes: signing.notes };
}

/**
 * `--rebuild <version|folder>`: the release built again from its provenance, compared byte for
 * byte: a version the bucket keeps, or a release folder (a CI candidate) from the documents it carries.
 */
async function rebuild(ctx: CommandContext, options: { bucket?: string }, target: string) {
  const folder = !isReleaseVersion(target) && existsSync(target);
  if (!folder && !isReleaseVersion(target))
    throw errors.usage(`--rebuild ${target} is neither a release version (YYYYMMDD.n) nor a release folder`);
  const bucket = await ctx.bucket(options);
  const { rebuildRelease } = await import('../../pipeline/rebuild-release.ts');
  const subject = folder ? { folder: target } : { version: target };
  const report = await rebuildRelease(bucket, subject, { settings: await ctx.settings(), dataDir: ctx.dataDir });
  if (ctx.json) {
    ctx.result(report);
    return report.matches ? 0 : 1;
  }
  const label = folder ? `${target} (${report.version})` : report.version;
  if (!report.matches) throw errors.rebuildDiffers(label, report.differences);
  const origin = (from: string) =>
    from === 'the snapshots'
      ? from
      : from.startsWith(bucket.description)
        ? 'the bucket'
        : folder && from.startsWith(target)
          ? "the folder's sources/"
          : 'the authority';
  const from = [...new Set(report.documents.map((doc) => origin(doc.from)))].join(' and ');
  ctx.result(
    report,
    `${label} matches its rebuild: ${report.documents.length} document(s) from ${from} give the same three files, byte for byte`,
  );
  return 0;
}

export function registerVerify(program: Command, run: Runner): void {
  program
    .command('verify')
    .description('Re-hash a release (a directory, or what a bucket holds) against its manifest and open every format with its own engine')
    .argument('[dir-or-version]', 'release directory (holding manifest.json), or a version the bucket keeps (default: its current one)')
    .option('--bucket <uri>', 'the bucket: s3://bucket/prefix or a folder (env TARIFF_BUCKET, default <data-dir>/bucket)')
    .option(
      '--accept-missing-sources',
      'a kept release whose documents the bucket lacks (published --without-sources) is a warning, not a failure',
    )
    .option(
      '--rebuild <version-or-folder>',
      'build a release again from its provenance and compare byte for byte: a version of the bucket, or a release folder from the documents it carries (its sources/)',
    )
    .addHelpText(
      'after',
      "\nThe current release also has its signature and expiry checked against the bucket's keys.json.\nExit status: 0 when every check holds, 1 otherwise.\n\nExamples:\n  tariff verify var/release\n  tariff verify --bucket s3://tariff-releases/prod            # the current release\n  tariff verify --bucket s3://tariff-releases/prod 20261101.2\n  tariff verify --rebuild 20261101.2 --bucket s3://tariff-releases/prod\n  tariff verify --rebuild release/                              # a CI candidate, from its own documents",
    )
    .action(
      run(async (ctx, target: string | undefined, options: { bucket?: string; rebuild?: string }) => {
        if (options.rebuild !== undefined) {
          if (target !== undefined) throw errors.usage('--rebuild names the release itself: give no other argument');
          return rebuild(ctx, options, options.rebuild);
        }
        // A folder is a release directory; a version, or nothing, is what the bucket holds.
        const inBucket = options.bucket !== undefined || target === undefined || isReleaseVersion(target);
        const where = inBucket ? `${options.bucket ?? 'the bucket'} ${target ?? 'current'}` : target!;
        const verifyFolder = async (dir: string) => (await import('../../release/verify-release.ts')).verifyRelease(dir);
        const report = inBucket ? await verifyInBucket(ctx, options, target) : { ...(await verifyFolder(target!)), signature: [] };
        const dir = where;
        if (ctx.json) {
          ctx.result(report);
          return report.ok ? 0 : 1;
        }
        if (!report.ok) {
          if (!inBucket) throw errors.verifyFailed(dir, report.problems);
          // Only the signature fails: the files are whole, the manifest is to be signed again.
          throw report.signature.length === report.problems.length
            ? errors.bucketSignatureFailed(dir, report.signature)
            : errors.bucketVerifyFailed(dir, report.problems);
        }
        const counts = report.checked[0]!;
        ctx.result(
          report,
          `ok ${report.version}: json, sqlite and docdb match the manifest and hold the same ${counts.products} products and ${counts.barcodes} barcodes`,
        );
      }),
    );
}
