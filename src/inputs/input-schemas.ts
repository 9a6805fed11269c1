import * as z from 'zod';
import { oneLine } from '../util/clean-text.ts';
import { parseWholeNumber } from '../util/whole-number.ts';

/**
 * The values people and programs type that no lower layer already rules on, one rule each,
 * shared by every surface that takes them (docs/architecture.md, "Inputs", names the others:
 * whole numbers, tariff codes, barcodes, versions): the same bad value gets the same verdict on
 * each, worded for that surface (a usage error, a 400 problem, a page or a form's message).
 */

/** The last page of a list a visitor may ask for (`?pagina=`): 50 a page, five million records. */
export const MAX_PAGE_NUMBER = 100_000;
/** A key's label: at most this many characters, as stored and shown. */
export const MAX_LABEL_LENGTH = 100;
/** An organisation's name at sign-up, in characters. */
export const ORGANISATION_LENGTH = { min: 2, max: 200 } as const;
/** A catalogue search: what the form takes, and what the service reads of a longer query. */
export const MAX_SEARCH_TEXT = 100;

/** A page of a list: 1 to MAX_PAGE_NUMBER, as digits (util/whole-number.ts); null when it is none. */
export const parsePageNumber = (value: unknown): number | null => parseWholeNumber(value, 1, MAX_PAGE_NUMBER);

/**
 * A key's label as stored and shown: control characters (which an operator's terminal would
 * obey) become spaces, runs of spaces fold, at most MAX_LABEL_LENGTH characters (the rest is cut).
 *
 * @example cleanLabel('cassa\u001b[2J 1') === 'cassa [2J 1'
 */
export function cleanLabel(label: string): string {
  return [...oneLine(label)].slice(0, MAX_LABEL_LENGTH).join('');
}

/** An e-mail address as the registry stores it: trimmed, lower case, and an address. */
const emailSchema = z.string().trim().toLowerCase().pipe(z.email());

/** The address as stored, or null when it is not one. */
export function normaliseEmail(value: string): string | null {
  const parsed = emailSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** An organisation's name: on one line, ORGANISATION_LENGTH characters. */
export const organisationSchema = z.string().transform(oneLine).pipe(z.string().min(ORGANISATION_LENGTH.min).max(ORGANISATION_LENGTH.max));

/** A catalogue search: its first MAX_SEARCH_TEXT characters. */
export const searchTextSchema = z.string().transform((text) => text.slice(0, MAX_SEARCH_TEXT));
