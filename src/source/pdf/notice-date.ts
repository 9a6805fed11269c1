import { parseCalendarDate } from '../../util/dates.ts';

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

// "con decorrenza dal 1° agosto 2026", "a decorrere dal 01/08/2026", "con decorrenza 1.8.2026"
const EFFECTIVE = new RegExp(
  String.raw`(?:con\s+decorrenza|a\s+decorrere|in\s+vigore)\s+(?:dal(?:l['’])?|da)?\s*(?:giorno\s+)?` +
    String.raw`(\d{1,2})\s*(?:°|º|o\b)?\s*(?:([/.\-])\s*(\d{1,2})\s*[/.\-]\s*|(${MONTHS.join('|')})\s+)(\d{4})`,
  'gi',
);

/**
 * The effective dates a notice's text states ("con decorrenza dal …", "a decorrere dal …"), as
 * ISO dates, without repeats. The text is the notice's prose, line after line.
 */
export function effectiveDatesIn(text: string): string[] {
  const dates = new Set<string>();
  for (const match of text.matchAll(EFFECTIVE)) {
    const day = match[1]!;
    const month = match[3] ?? String(MONTHS.indexOf(match[4]!.toLowerCase()) + 1);
    const iso = parseCalendarDate(`${day}/${month}/${match[5]}`);
    if (iso) dates.add(iso);
  }
  return [...dates];
}
