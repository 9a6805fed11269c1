import { compactDate } from '../util/dates.ts';

/** The version of the release a new one follows, and the tariff date it was for. */
export interface PreviousVersion {
  version: string;
  tariffDate: string;
}

/**
 * The version of a new build, `YYYYMMDD.n`: the date of the tariff in force, and n counting the
 * distinct contents published for that date. Never derived from the clock, so rebuilding the same
 * input gives the same version.
 *
 * - no previous release, or a different tariff date: n = 1;
 * - same tariff date and the same content: the previous version (nothing new to publish);
 * - same tariff date, different content: n + 1.
 *
 * A new number is also past every version in `taken` (releases still kept in the bucket, for
 * instance after a rollback made an older one current), so a version never names two contents.
 *
 * @example nextVersion('2026-11-15', { version: '20261115.2', tariffDate: '2026-11-15' }, false) === '20261115.3'
 */
export function nextVersion(tariffDate: string, previous: PreviousVersion | null, sameContent: boolean, taken: string[] = []): string {
  const datePart = compactDate(tariffDate);
  if (previous && previous.tariffDate === tariffDate && sameContent) return previous.version;
  const sequences = [...taken, ...(previous ? [previous.version] : [])]
    .map((version) => version.split('.'))
    .filter(([date]) => date === datePart)
    .map(([, sequence]) => Number(sequence));
  return `${datePart}.${Math.max(0, ...sequences) + 1}`;
}
