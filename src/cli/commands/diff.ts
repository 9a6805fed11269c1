import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { diffDatasets } from '../../dataset/diff-datasets.ts';
import type { Dataset } from '../../dataset/model.ts';
import { errors } from '../../errors.ts';
import { releaseFileKey } from '../../publish/bucket-layout.ts';
import type { Bucket } from '../../storage/bucket.ts';
import { wholeArgument, type CommandContext, type Runner } from '../context.ts';
import { DIFF_ROWS_SHOWN, renderDiff } from '../render-diff.ts';
import { renderDiffHtml } from '../render-diff-html.ts';
import { MARKDOWN_LIMITS, renderDiffMarkdown } from '../render-diff-markdown.ts';
import { isReleaseVersion } from '../../release/release-version.ts';
import { printable } from '../../util/clean-text.ts';

/** The rows of a release named on the command line: a folder or manifest.json, else a version the bucket keeps. */
async function releaseRows(
  spec: string,
  bucket: () => Promise<Bucket>,
): Promise<Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes'>> {
  // The engines and the bucket are loaded by a diff, not by --help.
  if (existsSync(spec) || !(spec === 'current' || isReleaseVersion(spec)))
    return (await (await import('../../release/read-release.ts')).readReleaseDataset(spec)).dataset;
  const { readCurrentManifest, readReleaseManifest, readReleaseRows } = await import('../../publish/bucket-releases.ts');
  const store = await bucket();
  const manifest = spec === 'current' ? await readCurrentManifest(store) : await readReleaseManifest(store, spec);
  // Nothing published yet (a pipeline's first run): against no release, everything is new.
  if (!manifest && spec === 'current') return { version: 'none', tariffDate: 'none', products: [], barcodes: [] };
  if (!manifest)
    throw errors.releaseUnreadable(`${store.description}${spec === 'current' ? '' : `releases/${spec}/`}`, 'the bucket does not hold it');
  const rows = await readReleaseRows(store, manifest.version);
  if (!rows) throw errors.releaseUnreadable(`${store.description}${releaseFileKey(manifest.version, 'json')}`, 'the file is missing');
  return rows;
}

export function registerDiff(program: Command, run: Runner): void {
  program
    .command('diff')
    .description('Show what changed between two releases: products, prices, barcodes')
    .argument('<old>', 'older release: a directory or manifest.json, or a version the bucket keeps (YYYYMMDD.n, or current)')
    .argument('<new>', 'newer release, the same way')
    .option('--bucket <uri>', 'the bucket the versions are read from (env TARIFF_BUCKET, default <data-dir>/bucket)')
    .option('--all', `list every row of every section (default: the first ${DIFF_ROWS_SHOWN}, then a count)`)
    .addOption(
      new Option(
        '--format <format>',
        'text for a terminal, json for a program, markdown for a merge request or job summary, html for a page',
      )
        .choices(['text', 'json', 'markdown', 'html'])
        .default('text'),
    )
    .option(
      '--max-chars <n>',
      `with --format markdown: at most this many characters, headline included, whole rows, each section's cut said (default ${MARKDOWN_LIMITS.github}, a GitHub comment, unless --max-bytes alone is given; GitLab notes take ${MARKDOWN_LIMITS.gitlab})`,
    )
    .option(
      '--max-bytes <n>',
      `with --format markdown: at most this many UTF-8 bytes (a GitHub job summary takes ${MARKDOWN_LIMITS.summaryBytes})`,
    )
    .addHelpText(
      'after',
      '\nExit status, like diff(1): 0 identical, 1 different, 2 error (a pipeline that only reports: `|| [ $? -eq 1 ]`).\n\nExamples:\n  tariff diff var/releases/20261101.1 var/releases/20261115.1\n  tariff diff 20261101.1 current --bucket s3://tariff-releases/prod --json\n  tariff diff current release/ --format markdown --max-bytes 1000000 >> "$GITHUB_STEP_SUMMARY"',
    )
    .action(
      run(
        async (
          ctx: CommandContext,
          oldSpec: string,
          newSpec: string,
          options: {
            all?: boolean;
            bucket?: string;
            format: 'text' | 'json' | 'markdown' | 'html';
            maxChars?: string;
            maxBytes?: string;
          },
        ) => {
          let opened: Promise<Bucket> | null = null;
          const bucket = () => (opened ??= ctx.bucket(options));
          const [older, newer] = await Promise.all([releaseRows(oldSpec, bucket), releaseRows(newSpec, bucket)]);
          const diff = diffDatasets(older, newer);
          const bytes = wholeArgument(options.maxBytes, '--max-bytes');
          // --max-bytes alone is the whole budget (a job summary); otherwise characters, a comment's by default.
          const chars = wholeArgument(options.maxChars, '--max-chars') ?? (bytes === undefined ? MARKDOWN_LIMITS.github : undefined);
          // A page or a comment carries no character a terminal would obey, as the text does not (product names are the authority's).
          if (options.format === 'markdown') ctx.io.stdout.write(printable(renderDiffMarkdown(diff, { chars, bytes })));
          else if (options.format === 'html') ctx.io.stdout.write(printable(renderDiffHtml(diff)));
          else if (options.format === 'json' || ctx.json) ctx.io.stdout.write(`${JSON.stringify(diff, null, 2)}\n`);
          else ctx.result(diff, renderDiff(diff, options.all ? Infinity : DIFF_ROWS_SHOWN));
          return diff.identical ? 0 : 1;
        },
        { errorExit: 2 },
      ),
    );
}
