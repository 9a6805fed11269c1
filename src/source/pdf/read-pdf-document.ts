import { errors } from '../../errors.ts';
import { checkInProcess } from './check-in-process.ts';
import { checkPdfStructure, type StructureFault } from './check-structure.ts';
import { DocumentDeadline } from './document-deadline.ts';
import { interpretReading, type DocumentInterpretation } from './interpret-document.ts';
import { releasePdfReaders, streamPdfPages, type ReadPdfOptions } from './read-pdf-runs.ts';
import { READER_LIMITS } from './reader-tolerances.ts';
import { TableWalker } from './read-tables.ts';

/**
 * Where a document's structure is checked. A list (the longest real one is 1.5 MB) is checked in
 * the command while its readers begin (in milliseconds, holding a few MB). A longer document is
 * checked in a process of its own (check-in-process.ts) before any reader begins: what the check
 * unpacks would otherwise stay in the command's memory while the pages are read (46 MB for a list
 * of 28,000 products, past the bound). Past 16 MB the file is mostly something other than pages,
 * which the check does not unpack: it is checked on the bytes the command holds, not copied.
 */
const checkedApart = (size: number) => size > 4 * 1024 * 1024 && size <= 16 * 1024 * 1024;

/**
 * Reads a PDF as the authority's document it is, within its limits of work and one memory bound:
 * its structure is checked (check-structure.ts: a damaged one is refused, never read as whole), its
 * pages are walked for tables as the readers send them (each page's runs dropped once walked), then
 * the tables are interpreted. Every step checks the document's backstop (docs/source-format.md, "Limits").
 */
export async function readPdfDocument(bytes: Uint8Array, source: string, options: ReadPdfOptions = {}): Promise<DocumentInterpretation> {
  const deadline = new DocumentDeadline(source, options.limits?.deadlineMs ?? READER_LIMITS.deadlineMs);
  const walker = new TableWalker(source, options.limits);
  // Checked before anything read is trusted: PDFium repairs what it can silently, and a repaired
  // list can read as whole with rows missing (docs/source-format.md, "Damaged documents").
  const limits = { ...READER_LIMITS, ...options.limits };
  const refuse = (fault: StructureFault | null) => {
    if (fault?.reason === 'damaged') throw errors.pdfDamaged(source, fault.detail);
    if (fault) throw errors.pdfUnreadable(source, fault.detail);
  };
  const check = checkedApart(bytes.length)
    ? {
        beforeReading: async (path: string) => {
          // Idle readers end first (they start again for the pages): the check's memory and theirs are
          // never held at once.
          releasePdfReaders();
          refuse(await checkInProcess(path, limits));
        },
      }
    : { whileReading: () => refuse(checkPdfStructure(bytes, limits)) };
  await streamPdfPages(bytes, source, (page) => walker.add(page), { ...options, deadline, ...check });
  const document = interpretReading(walker.reading, source);
  deadline.check('interpreting its tables');
  return document;
}
