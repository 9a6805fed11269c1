import { compactDate } from '../util/dates.ts';

export interface PreviousRelease {
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
 * @example nextVersion('2026-11-15', { version: '20261115.2', tariffDate: '2026-11-15' }, false) === '20261115.3'
 */
export function nextVersion(tariffDate: string, previous: PreviousRelease | null, sameContent: boolean): string {
  const datePart = compactDate(tariffDate);
  if (!previous || previous.tariffDate !== tariffDate) return `${datePart}.1`;
  if (sameContent) return previous.version;
  const [previousDate, sequence] = previous.version.split('.');
  if (previousDate !== datePart) return `${datePart}.1`;
  return `${datePart}.${Number(sequence) + 1}`;
}
