import { errors } from '../../errors.ts';
import { checkPdfStructure } from './check-structure.ts';
import { DocumentDeadline } from './document-deadline.ts';
import { interpretReading, type DocumentInterpretation } from './interpret-document.ts';
import { streamPdfPages, type ReadPdfOptions } from './read-pdf-runs.ts';
import { READER_LIMITS } from './reader-tolerances.ts';
import { TableWalker } from './read-tables.ts';

/**
 * Reads a PDF as the authority's document it is, within its limits of work and one memory bound:
 * its structure is checked first (check-structure.ts: damaged is refused, never read as whole),
 * its pages are walked for tables as the readers send them (each page's runs dropped once walked), then
 * the tables are interpreted. Every step checks the document's deadline (docs/source-format.md, "Limits").
 */
export async function readPdfDocument(bytes: Uint8Array, source: string, options: ReadPdfOptions = {}): Promise<DocumentInterpretation> {
  // Checked before any reader sees it: PDFium repairs what it can silently, and a repaired list can read as whole with rows missing.
  const fault = checkPdfStructure(bytes, { ...READER_LIMITS, ...options.limits });
  if (fault?.reason === 'damaged') throw errors.pdfDamaged(source, fault.detail);
  if (fault) throw errors.pdfUnreadable(source, fault.detail);
  const deadline = new DocumentDeadline(source, options.limits?.deadlineMs ?? READER_LIMITS.deadlineMs);
  const walker = new TableWalker(source, options.limits);
  await streamPdfPages(bytes, source, (page) => walker.add(page), { ...options, deadline });
  const document = interpretReading(walker.reading, source);
  deadline.check('interpreting its tables');
  return document;
}
