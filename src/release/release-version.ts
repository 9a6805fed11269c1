import * as z from 'zod';

/**
 * A release's version, `YYYYMMDD.n`: the date of the tariff in force, then the sequence of the
 * contents published for that date, from 1 (release/next-version.ts). The one pattern every reader
 * of versions uses: manifests, datasets, the history, the bucket's keys, the till's copies and the
 * command line.
 */
export const VERSION_PATTERN = String.raw`\d{8}\.[1-9]\d*`;

const WHOLE_VERSION = new RegExp(`^${VERSION_PATTERN}$`);

/** @example isReleaseVersion('20261101.2') && !isReleaseVersion('20261101.0') && !isReleaseVersion('2026-11-01') */
export const isReleaseVersion = (text: string): boolean => WHOLE_VERSION.test(text);

/** A release version in a parsed document. */
export const releaseVersionSchema = z.string().regex(WHOLE_VERSION, 'a release version (YYYYMMDD.n)');

/** Orders versions YYYYMMDD.n by date, then by sequence number (so .10 follows .9). */
export function compareVersions(a: string, b: string): number {
  const [dateA, seqA] = a.split('.');
  const [dateB, seqB] = b.split('.');
  return dateA! < dateB! ? -1 : dateA! > dateB! ? 1 : Number(seqA) - Number(seqB);
}
