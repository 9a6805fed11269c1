import { errors } from '../errors.ts';
import { checkGtin } from '../gs1/gtin.ts';
import type { Barcode } from './model.ts';
import { barcodeRule } from './barcode-rules.ts';
import { parseTariffCode } from '../source/tariff-code.ts';
import { parseWholeNumber } from '../util/whole-number.ts';

const MAX_PROBLEMS = 20;
const COLUMNS = ['barcode', 'admCode', 'kind', 'units'] as const;

/**
 * Reads a barcode list for `tariff build --barcodes` (format in docs/dataset.md): a header line
 * `barcode,admCode,kind,units`, then one match per line; `,`, `;` or tab separate the fields,
 * `kind` and `units` may be left empty (pack, 1), blank lines and lines starting with # are skipped.
 * Barcodes are stored in their canonical GTIN form, so one code written with 12, 13 or 14 digits
 * is one row.
 */
export function parseBarcodeList(text: string, source: string): Barcode[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((line) => line.trim() !== '' && !line.startsWith('#'));
  if (headerIndex === -1) return [];
  const header = lines[headerIndex]!;
  const separator = [',', ';', '\t'].find((candidate) => header.includes(candidate)) ?? ',';
  const names = header.split(separator).map((name) => name.trim());
  const position = Object.fromEntries(COLUMNS.map((column) => [column, names.indexOf(column)])) as Record<(typeof COLUMNS)[number], number>;
  if (position.barcode === -1 || position.admCode === -1) {
    throw errors.barcodesInvalid(
      `${source} line ${headerIndex + 1}`,
      `the header must name the columns barcode and admCode (optionally kind, units); found "${header}"`,
    );
  }

  const problems: string[] = [];
  const byBarcode = new Map<string, { row: Barcode; line: number }>();
  const [barcodeAt, admCodeAt, kindAt, unitsAt] = COLUMNS.map((column) => position[column]) as [number, number, number, number];
  for (let index = headerIndex + 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '' || line.startsWith('#')) continue;
    const fields = line.split(separator);
    const result = readRow(field(fields, barcodeAt), field(fields, admCodeAt), field(fields, kindAt), field(fields, unitsAt));
    if ('problem' in result) {
      if (problems.length < MAX_PROBLEMS) problems.push(`${source} line ${index + 1}: ${result.problem}`);
      continue;
    }
    const seen = byBarcode.get(result.row.barcode);
    if (seen && (seen.row.admCode !== result.row.admCode || seen.row.kind !== result.row.kind || seen.row.units !== result.row.units)) {
      if (problems.length < MAX_PROBLEMS)
        problems.push(`${source} line ${index + 1}: barcode ${result.row.barcode} is also on line ${seen.line} with a different match`);
      continue;
    }
    if (!seen) byBarcode.set(result.row.barcode, { row: result.row, line: index + 1 });
  }
  if (problems.length > 0) throw errors.barcodesInvalid(source, `${problems.length} problem(s):\n  - ${problems.join('\n  - ')}`);
  return [...byBarcode.values()].map((entry) => entry.row);
}

function field(fields: string[], at: number): string {
  return at === -1 ? '' : (fields[at] ?? '').trim();
}

function readRow(barcodeText: string, admCodeText: string, kindText: string, unitsText: string): { row: Barcode } | { problem: string } {
  const gtin = checkGtin(barcodeText);
  if (!gtin.ok) return { problem: `barcode "${barcodeText}": ${gtin.reason} (${gtin.detail})` };
  const admCode = parseTariffCode(admCodeText);
  if (admCode === null) return { problem: `admCode "${admCodeText}" is not a tariff code (a whole number of 1 to 9 digits)` };
  const kind = kindText === '' ? 'pack' : kindText;
  const units = unitsText === '' ? undefined : (parseWholeNumber(unitsText, 1, Number.MAX_SAFE_INTEGER) ?? Number.NaN);
  const rule = barcodeRule(kind, units);
  if (!rule.ok) return { problem: `${rule.reason}: ${rule.detail}` };
  return { row: { barcode: gtin.canonical, admCode, kind: rule.kind, units: rule.units } };
}
