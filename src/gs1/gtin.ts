export type GtinProblem = 'invalid_barcode' | 'invalid_checksum' | 'unsupported_barcode';

export type GtinCheck = { ok: true; gtin14: string; canonical: string } | { ok: false; reason: GtinProblem; detail: string };

/** GS1 check digit of the digits that precede it (weights 3,1,3,… from the right). */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (body.charCodeAt(i) - 48) * weight;
  return (10 - (sum % 10)) % 10;
}

/**
 * The one written form of a GTIN used as its identity in the dataset and for voting: GS1 says
 * that one GTIN written with 8, 12, 13 or 14 digits (leading zeros) is the same item, so all are
 * padded to 14 digits and then shortened to the form scanners print: 8 digits for a GTIN-8,
 * 13 for GTIN-12 and GTIN-13 (a UPC-A keeps its leading 0), 14 for a GTIN-14 with an indicator.
 */
export function canonicalGtin(gtin14: string): string {
  if (gtin14.startsWith('000000')) return gtin14.slice(6);
  if (gtin14.startsWith('0')) return gtin14.slice(1);
  return gtin14;
}

/**
 * Checks a retail barcode as the service accepts it: 8, 12, 13 or 14 digits, a valid GS1 check
 * digit, and a GS1 prefix that names a trade item (not a book, a coupon or an in-store code).
 * The classification is documented in docs/barcodes.md.
 *
 * @example checkGtin('8000000000017') // { ok: true, gtin14: '08000000000017', canonical: '8000000000017' }
 */
export function checkGtin(text: string): GtinCheck {
  if (!/^(\d{8}|\d{12}|\d{13}|\d{14})$/.test(text)) {
    return { ok: false, reason: 'invalid_barcode', detail: 'a barcode has 8, 12, 13 or 14 digits and nothing else' };
  }
  const expected = gs1CheckDigit(text.slice(0, -1));
  if (expected !== Number(text.at(-1))) {
    return { ok: false, reason: 'invalid_checksum', detail: `the check digit should be ${expected}` };
  }
  const gtin14 = text.padStart(14, '0');
  const canonical = canonicalGtin(gtin14);
  const unsupported = unsupportedKind(gtin14, canonical);
  if (unsupported) return { ok: false, reason: 'unsupported_barcode', detail: unsupported };
  return { ok: true, gtin14, canonical };
}

function unsupportedKind(gtin14: string, canonical: string): string | null {
  if (canonical.length === 8) {
    // GS1 reserves GTIN-8 prefixes 0 and 2 for restricted circulation numbers (RCN-8).
    return canonical[0] === '0' || canonical[0] === '2' ? 'restricted-circulation EAN-8 (prefix 0 or 2)' : null;
  }
  if (gtin14[0] === '9') return 'variable-measure GTIN-14 (indicator 9)';
  // The GS1 prefix is read on the 13-digit form without the indicator digit, so a UPC-A
  // (number system 2, 4, 5) and its 13- and 14-digit spellings are classified alike.
  const ean13 = gtin14.slice(1);
  if (/^(977|978|979)/.test(ean13)) return 'publishing code (ISSN/ISBN/ISMN prefix 977-979)';
  if (/^(2|02|04)/.test(ean13)) return 'restricted-circulation or variable-weight code (prefix 2, or UPC number system 2 or 4)';
  if (/^(98|99|05)/.test(ean13)) return 'coupon or refund code (prefix 98, 99, or UPC number system 5)';
  return null;
}
