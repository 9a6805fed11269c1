import { parseCalendarDate } from '../util/dates.ts';

const MONTHS = [
  'gennaio',
  'febbraio',
  'marzo',
  'aprile',
  'maggio',
  'giugno',
  'luglio',
  'agosto',
  'settembre',
  'ottobre',
  'novembre',
  'dicembre',
];

/**
 * A day as the authority writes it: "22/07/2026", "3/04/2026", "1.8.2026", "10 OTTOBRE 2023",
 * "1° dicembre 2026", "01 agosto 2026". Groups: day, numeric month, month name, year.
 */
const DAY = String.raw`(\d{1,2})\s*(?:°|º|o\b)?\s*(?:[/.\-]\s*(\d{1,2})\s*[/.\-]\s*|(${MONTHS.join('|')})\s+)(\d{4})`;

// "LISTINO AGGIORNATO AL 22/07/2026", "LISTINO CAMPIONE D'ITALIA AGGIORNATO AL 3/04/2026"
const LIST_DATE = new RegExp(String.raw`aggiornat[oa]\s+al(?:l['’])?\s*` + DAY, 'i');
// "con decorrenza dal 1° agosto 2026", "a decorrere dal 01/08/2026", "con decorrenza 1.8.2026"
const EFFECTIVE = new RegExp(
  String.raw`(?:con\s+decorrenza|a\s+decorrere|in\s+vigore)\s+(?:dal(?:l['’])?|da)?\s*(?:giorno\s+)?` + DAY,
  'gi',
);

function isoOf(match: RegExpExecArray | RegExpMatchArray): string | null {
  const month = match[2] ?? String(MONTHS.indexOf(match[3]!.toLowerCase()) + 1);
  return parseCalendarDate(`${match[1]}/${month}/${match[4]}`);
}

/** The date of a list's title ("LISTINO … AGGIORNATO AL …"): the ISO day, `invalid` when it is not a real day, or null. */
export function listDateIn(text: string): { iso: string | null; written: string } | null {
  const match = LIST_DATE.exec(text);
  return match ? { iso: isoOf(match), written: match[0] } : null;
}

/**
 * The effective dates a notice's text, or the page that links it, states ("con decorrenza dal …",
 * "a decorrere dal …"), as ISO dates, without repeats, in the order written.
 */
export function effectiveDatesIn(text: string): string[] {
  const dates = new Set<string>();
  for (const match of text.matchAll(EFFECTIVE)) {
    const iso = isoOf(match);
    if (iso) dates.add(iso);
  }
  return [...dates];
}
