import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { positiveInteger } from '../../config/load-settings.ts';
import { errors } from '../../errors.ts';
import { bucketFileProblems } from '../../publish/check-bucket-release.ts';
import { readPublishedRows } from '../../publish/read-published-rows.ts';
import { listReleases, publishRelease, readCurrentManifest } from '../../publish/publish-release.ts';
import { compareVersions, versionsToPrune } from '../../publish/bucket-layout.ts';
import { SnapshotStore } from '../../fetch/snapshot-store.ts';
import { summariseChanges } from '../../dataset/summarise-changes.ts';
import { sha256Hex } from '../../release/gzip.ts';
import { verifyRelease } from '../../release/verify-release.ts';
import { writeReleaseDir } from '../../release/write-release-dir.ts';
import { acquireLock, DEFAULT_LOCK_STALE_MS } from '../../util/run-lock.ts';
import { cleanLeftovers } from '../../util/leftovers.ts';
import type { Runner } from '../context.ts';
import { FORMATS } from '../../release/manifest.ts';
import { StepReporter } from '../step-reporter.ts';
import { describeBuild, runBuild } from './build.ts';
import { runFetch, SOURCE_PAGE_OPTION, SOURCE_URL_OPTION } from './fetch.ts';
import { BUCKET_OPTION, bucketSettings, KEEP_OPTION, type BucketOptions } from './publish.ts';

interface ReleaseOptions extends BucketOptions {
  sourceUrl?: string[];
  sourcePage?: string[];
  date?: string;
  baseUrl?: string;
  barcodes?: string;
  allowShrink?: boolean;
  maxShrink?: string;
  quiet?: boolean;
}

export function registerRelease(program: Command, run: Runner): void {
  program
    .command('release')
    .description('The cron entry point: fetch, build the tariff in force today, publish it if its content changed')
    .option(...BUCKET_OPTION)
    .option(...SOURCE_PAGE_OPTION)
    .option(...SOURCE_URL_OPTION)
    .option('--date <YYYY-MM-DD>', 'act as on this day (default: today in Europe/Rome)')
    .option('--base-url <url>', 'public base URL of the files in the manifest (env TARIFF_BASE_URL)')
    .option('--barcodes <file>', 'approved barcode matches to include (CSV, see docs/dataset.md)')
    .option('--allow-shrink', 'accept a tariff that drops more products than --max-shrink allows')
    .option('--max-shrink <percent>', 'largest share of the previous products a release may drop (env TARIFF_MAX_SHRINK, default 20)')
    .option(...KEEP_OPTION)
    .option('--quiet', 'print only the result line ("unchanged …" or "published …")')
    .addHelpText(
      'after',
      '\nExit status: 0 published or unchanged; 1 failure, or a list could not be fetched (the last good snapshot was used); 2 usage.\n\nExample (crontab, every three hours):\n  0 */3 * * *  cd /srv/tariff && npx tariff release --quiet',
    )
    .action(
      run(async (ctx, options: ReleaseOptions) => {
        const reporter = new StepReporter(ctx, options.quiet);
        const staleMs =
          (positiveInteger(ctx.io.env.TARIFF_LOCK_STALE_SECONDS, 'TARIFF_LOCK_STALE_SECONDS') ?? DEFAULT_LOCK_STALE_MS / 1000) * 1000;
        const unlock = await acquireLock(ctx.dataDir, 'release', staleMs);
        try {
          const { bucket, keep, config } = await bucketSettings(ctx, options);
          // Under the lock no run of ours is writing: what is old and half-written is a crashed run's.
          for (const path of await cleanLeftovers([ctx.dataDir], ctx.io.now()))
            reporter.step('clean', `removed ${path}, left by an interrupted run`);
          const { reports, documents } = await runFetch(ctx, options, reporter);
          const fetchFailed = reports.some((r) => r.status === 'failed');
          if (documents.length === 0)
            throw errors.fetchFailed(reports.map((r) => r.url).join(', '), 'no list has ever been fetched successfully');

          const [previous, kept] = await Promise.all([readCurrentManifest(bucket), listReleases(bucket)]);
          const previousDataset = previous ? await readPublishedRows(bucket, previous, (line) => reporter.step('build', line)) : null;
          const built = await runBuild(
            ctx,
            {
              source: [],
              documents,
              barcodes: options.barcodes,
              date: options.date,
              baseUrl: options.baseUrl ?? ctx.io.env.TARIFF_BASE_URL ?? config.baseUrl,
              allowShrink: options.allowShrink,
              maxShrink: options.maxShrink,
            },
            { previous, previousDataset, takenVersions: [...kept.versions, ...kept.incomplete] },
          );
          const summary = {
            fetch: reports,
            version: built.manifest.version,
            previousVersion: previous?.version ?? null,
            bucket: bucket.description,
            changesSince: built.changesSince,
            changes: summariseChanges(built.changes),
          };
          for (const line of describeBuild(built, bucket.description)) reporter.step('build', line);
          // Unchanged content is nothing to do only when the bucket still holds it whole; otherwise the publish below repairs it.
          const damaged = built.unchanged ? await bucketFileProblems(bucket, built.manifest) : [];
          for (const problem of damaged) reporter.step('verify', `the current release is damaged: ${problem}; repairing`);
          if (built.unchanged && damaged.length === 0) {
            reporter.stop();
            ctx.result({ ...summary, status: 'unchanged' }, `unchanged ${built.manifest.version}`);
            return fetchFailed ? 1 : 0;
          }

          // A local copy of every published release, with what it was built from, so it can be traced and rebuilt.
          const releasesDir = join(ctx.dataDir, 'releases');
          const local = join(releasesDir, built.manifest.version);
          await writeReleaseDir(built, local);
          await writeFile(
            join(local, 'provenance.json'),
            `${JSON.stringify(await provenance(built.manifest.version, documents, options.barcodes), null, 2)}\n`,
          );
          const check = await verifyRelease(local);
          if (!check.ok) throw errors.verifyFailed(local, check.problems);

          const published = await publishRelease(bucket, built, { keep, onStep: reporter.publishStep(FORMATS.length) });
          await pruneLocal(releasesDir, keep, published.version);
          reporter.stop();
          const said =
            published.status === 'repaired'
              ? `repaired ${published.version}`
              : `published ${published.version} (was ${published.previousVersion ?? 'none'})`;
          for (const version of published.cleaned ?? [])
            reporter.step('prune', `removed the incomplete version ${version}, left by an interrupted run`);
          ctx.result(
            {
              ...summary,
              status: published.status === 'repaired' ? 'repaired' : 'published',
              pruned: published.pruned,
              cleaned: published.cleaned ?? [],
              repaired: published.repaired,
            },
            said,
          );
          return fetchFailed ? 1 : 0;
        } finally {
          reporter.stop();
          await unlock();
        }
      }),
    );
}

async function provenance(version: string, documents: { name: string; bytes: Uint8Array }[], barcodes: string | undefined) {
  return {
    version,
    sources: documents.map((doc) => ({
      url: doc.name,
      sha256: sha256Hex(doc.bytes),
      snapshot: relative('.', new SnapshotStore('.').path(sha256Hex(doc.bytes), doc.bytes)),
    })),
    barcodes: barcodes ? { file: barcodes, sha256: sha256Hex(await readFile(barcodes)) } : null,
  };
}

async function pruneLocal(dir: string, keep: number, current: string): Promise<void> {
  const versions = (await readdir(dir)).filter((name) => /^\d{8}\.\d+$/.test(name)).sort(compareVersions);
  for (const version of versionsToPrune(versions, keep, current)) await rm(join(dir, version), { recursive: true, force: true });
}
