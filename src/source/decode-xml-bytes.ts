import { errors } from '../errors.ts';

const PROLOG_ENCODING = /^<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

/**
 * Turns the raw bytes of a feed into text, honouring a byte-order mark or the encoding declared
 * in the XML prolog (the authority's lists are often ISO-8859-1). Undeclared input must be
 * valid UTF-8: guessing would silently mangle accented product names.
 *
 * @example decodeXmlBytes(readFileSync('sigarette.xml'), 'sigarette.xml')
 */
export function decodeXmlBytes(bytes: Uint8Array, where: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decode('utf-8', bytes.subarray(3), where);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode('utf-16le', bytes.subarray(2), where);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode('utf-16be', bytes.subarray(2), where);

  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1').trimStart();
  const declared = PROLOG_ENCODING.exec(head)?.[1];
  return decode(declared ?? 'utf-8', bytes, where);
}

function decode(label: string, bytes: Uint8Array, where: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw errors.sourceMalformed(where, `the declared encoding "${label}" is not supported (use UTF-8 or ISO-8859-1)`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw errors.sourceMalformed(where, `the bytes are not valid ${label}; declare the encoding in the XML prolog`);
  }
}
