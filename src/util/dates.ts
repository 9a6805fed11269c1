const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ITALIAN_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/**
 * Reads a calendar date written as ISO ("2026-11-15") or the Italian way ("15/11/2026") and
 * returns it as ISO, or null when it is not a real day (31/02, 2026-13-01).
 */
export function parseCalendarDate(text: string): string | null {
  const trimmed = text.trim();
  let year: number, month: number, day: number;
  const iso = ISO_DATE.exec(trimmed);
  const italian = ITALIAN_DATE.exec(trimmed);
  if (iso) [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else if (italian) [day, month, year] = [Number(italian[1]), Number(italian[2]), Number(italian[3])];
  else return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}

// Made on first use: a formatter with a time zone loads ICU's zone data, which a command that
// never asks for an Italian day (`tariff sync`) need not pay for at start-up.
let romeDate: Intl.DateTimeFormat | undefined;

/** The calendar day in Italy at `instant`: tariffs take effect on Italian days, not UTC ones. */
export function dateInRome(instant: Date): string {
  romeDate ??= new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Rome', year: 'numeric', month: '2-digit', day: '2-digit' });
  return romeDate.format(instant);
}

/** "2026-11-15" → "20261115", the date part of a release version. */
export function compactDate(isoDate: string): string {
  return isoDate.replaceAll('-', '');
}

// One formatter per time zone, made once: making one costs a millisecond or two, and the API
// formats a time for every submission it lists and every quota answer.
const wallClocks = new Map<string, Intl.DateTimeFormat>();

function wallClock(timeZone: string): Intl.DateTimeFormat {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallClocks.set(timeZone, format);
  }
  return format;
}

/**
 * An instant as ISO 8601 with an explicit offset in the given time zone,
 * e.g. "2026-11-22T02:40:05+01:00" in Europe/Rome or "2026-11-23T00:00:00+00:00" in UTC.
 */
export function formatWithOffset(instant: Date, timeZone = 'UTC'): string {
  const parts = Object.fromEntries(
    wallClock(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  const offsetMinutes = Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
