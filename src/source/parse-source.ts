import { errors } from '../errors.ts';
import type { ParsedSource } from './source-types.ts';

export type SourceFormat = 'pdf' | 'xml';

/** A document's format from its first bytes, never from its name or URL (the authority's have no extension). */
export function sourceFormat(bytes: Uint8Array): SourceFormat | null {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (head.includes('%PDF-')) return 'pdf';
  if (/^(\xef\xbb\xbf|\xfe\xff|\xff\xfe)?\s*</.test(head)) return 'xml';
  return null;
}

/**
 * Reads one source document: the authority's PDF price lists and notices, or the XML feed
 * format (docs/source-format.md).
 */
export async function parseSource(bytes: Uint8Array, source: string): Promise<ParsedSource> {
  const format = sourceFormat(bytes);
  if (format === 'xml') {
    // Each reader is loaded on first use: the authority publishes PDFs, and most PDF builds never read XML.
    const { parseTariffXml } = await import('./parse-tariff-xml.ts');
    return { lists: parseTariffXml(bytes, source), notices: [], setAside: [] };
  }
  if (format === 'pdf') {
    const { parsePdfSource } = await import('./pdf/parse-pdf-source.ts');
    return parsePdfSource(bytes, source);
  }
  throw errors.notPriceList(source, 'neither a PDF nor an XML document');
}
