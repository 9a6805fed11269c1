import { DocumentDeadline } from './document-deadline.ts';
import { interpretReading, type DocumentInterpretation } from './interpret-document.ts';
import { streamPdfPages, type ReadPdfOptions } from './read-pdf-runs.ts';
import { READER_LIMITS } from './reader-tolerances.ts';
import { TableWalker } from './read-tables.ts';

/**
 * Reads a PDF as the authority's document it is, within one deadline and one memory bound: its
 * pages are walked for tables as the readers send them (each page's runs dropped once walked), then
 * the tables are interpreted. Every step checks the document's deadline (docs/source-format.md, "Limits").
 */
export async function readPdfDocument(bytes: Uint8Array, source: string, options: ReadPdfOptions = {}): Promise<DocumentInterpretation> {
  const deadline = new DocumentDeadline(source, options.limits?.deadlineMs ?? READER_LIMITS.deadlineMs);
  const walker = new TableWalker(source, options.limits?.tablesPerDocument);
  await streamPdfPages(bytes, source, (page) => walker.add(page), { ...options, deadline });
  const document = interpretReading(walker.reading, source);
  deadline.check('interpreting its tables');
  return document;
}
