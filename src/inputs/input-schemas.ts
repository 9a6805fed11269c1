import * as z from 'zod';
import { MAX_CARTON_UNITS } from '../dataset/barcode-rules.ts';
import { checkGtin } from '../gs1/gtin.ts';
import { parseTariffCode } from '../source/tariff-code.ts';
import { oneLine } from '../util/clean-text.ts';
import { wholeNumberSchema } from '../util/whole-number.ts';

/**
 * The values people and programs type, one schema each, shared by every surface that takes them
 * (docs/architecture.md, "Inputs"): the command line, the `/v1` API and the website parse a value
 * of the same kind with the same schema, so the same bad value gets the same verdict on each,
 * worded for that surface (a usage error, a 400 problem, a page or a form's message).
 */

/** The last page of a list a visitor may ask for (`?pagina=`): 50 a page, five million records. */
export const MAX_PAGE_NUMBER = 100_000;
/** A key's label: at most this many characters, as stored and shown. */
export const MAX_LABEL_LENGTH = 100;
/** An organisation's name at sign-up, in characters. */
export const ORGANISATION_LENGTH = { min: 2, max: 200 } as const;
/** A catalogue search: what the form takes, and what the service reads of a longer query. */
export const MAX_SEARCH_TEXT = 100;

/** A page of a list: 1 to MAX_PAGE_NUMBER, as digits. */
export const pageNumberSchema = wholeNumberSchema(1, MAX_PAGE_NUMBER);

/** The units a barcode stands for: 1 to MAX_CARTON_UNITS, as digits (barcodeRule then holds a pack to 1 and a carton to 2 or more). */
export const unitsSchema = wholeNumberSchema(1, MAX_CARTON_UNITS);

/** A tariff code (source/tariff-code.ts): 1 to 9 digits, or a JSON integer. */
export const tariffCodeSchema = z.unknown().transform((value, context) => {
  const code = parseTariffCode(value);
  if (code !== null) return code;
  context.addIssue({ code: 'custom', message: 'a tariff code (a whole number of 1 to 9 digits)' });
  return z.NEVER;
});

/** A barcode (gs1/gtin.ts), as stored: its canonical GTIN. */
export const barcodeSchema = z.string().transform((text, context) => {
  const gtin = checkGtin(text.trim());
  if (gtin.ok) return gtin.canonical;
  context.addIssue({ code: 'custom', message: `${gtin.reason}: ${gtin.detail}` });
  return z.NEVER;
});

/**
 * A key's label as stored and shown: control characters (which an operator's terminal would
 * obey) become spaces, runs of spaces fold, at most MAX_LABEL_LENGTH characters (the rest is cut).
 */
export const keyLabelSchema = z.string().transform((label) => cleanLabel(label));

/** @example cleanLabel('cassa\u001b[2J 1') === 'cassa [2J 1' */
export function cleanLabel(label: string): string {
  return [...oneLine(label)].slice(0, MAX_LABEL_LENGTH).join('');
}

/** An e-mail address as the registry stores it: trimmed, lower case, and an address. */
export const emailSchema = z.string().trim().toLowerCase().pipe(z.email());

/** The address as stored, or null when it is not one. */
export function normaliseEmail(value: string): string | null {
  const parsed = emailSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** An organisation's name: on one line, ORGANISATION_LENGTH characters. */
export const organisationSchema = z.string().transform(oneLine).pipe(z.string().min(ORGANISATION_LENGTH.min).max(ORGANISATION_LENGTH.max));

/** A catalogue search: its first MAX_SEARCH_TEXT characters. */
export const searchTextSchema = z.string().transform((text) => text.slice(0, MAX_SEARCH_TEXT));
