import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { damage } from '../../fixtures/damaged-pdfs.ts';
import { makePaddedList } from '../../fixtures/hostile-pdfs.ts';
import { parsePdfSource } from '../../src/source/pdf/parse-pdf-source.ts';
import { REPO } from '../helpers/run-cli.ts';

const LIST = readFileSync(`${REPO}/fixtures/adm/listino-sigarette-2023-10-10.pdf`);
// Over 4 MB: checked in the checker's process (check-in-process.ts), not in the command.
const PADDED = makePaddedList(LIST, 5);

describe('a document longer than any list, its structure checked in a process of its own', () => {
  it('reads exactly as the list it holds', async () => {
    expect(PADDED.length).toBeGreaterThan(4 * 1024 * 1024);
    const [list, padded] = await Promise.all([parsePdfSource(LIST, 'list.pdf'), parsePdfSource(PADDED, 'padded.pdf')]);
    expect(padded.lists[0]!.products.map(({ where, ...row }) => row)).toEqual(list.lists[0]!.products.map(({ where, ...row }) => row));
  });

  it('refuses it damaged, naming the object, as a list checked in the command is', async () => {
    const damaged = damage(PADDED, 'flip-in-stream', 3)!;
    await expect(parsePdfSource(damaged.bytes, 'padded.pdf')).rejects.toMatchObject({
      code: 'source_pdf_damaged',
      message: expect.stringMatching(/^padded\.pdf: the PDF is damaged: /),
    });
  });
});
