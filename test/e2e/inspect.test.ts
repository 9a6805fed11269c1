import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProsePdf } from '../../fixtures/adm-pdf.ts';
import { readWithPdftotext } from '../helpers/pdftotext-reading.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const TRINCIATI = join(REPO, 'fixtures/adm/listino-trinciati-2023-05-17.pdf');

describe('tariff inspect', () => {
  it('shows how a real list reads: kind, category, date, unit, columns with their x ranges, every row as CSV', async () => {
    const text = await runCli(['inspect', TRINCIATI, '--no-rows']);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("a category's national price list, 3 page(s)");
    expect(text.stdout).toContain('category: trinciati ("Trinciato per sigarette")');
    expect(text.stdout).toContain('date: 2023-05-17');
    expect(text.stdout).toContain('reference price per: kg');
    expect(text.stdout).toMatch(
      /page 1 columns: code …–[\d.]+, product [\d.]+–[\d.]+, pack [\d.]+–[\d.]+, reference [\d.]+–[\d.]+, packPrice [\d.]+–…/,
    );
    expect(text.stdout).toContain('no problems');

    const csv = await runCli(['inspect', TRINCIATI, '--csv']);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('page,row,code,product,pack,reference,packPrice');
    const independent = readWithPdftotext(TRINCIATI).rows;
    expect(lines.slice(1).map((line) => line.split(',')[2])).toEqual(independent.map((row) => String(row.admCode)));
    expect(lines[1]).toBe('1,1,3622,#NO NAME AUTHENTIC,da 30 grammi,"230,00","6,90"');

    const json = JSON.parse((await runCli(['inspect', TRINCIATI, '--json'])).stdout);
    expect(json).toMatchObject({ kind: 'list', category: 'trinciati', date: '2023-05-17', referenceUnit: 'kg', pages: 3, problems: [] });
    expect(json.tables.flatMap((t: { rows: unknown[] }) => t.rows)).toHaveLength(independent.length);
  });

  it('says a PDF is no price document, with exit 1', async () => {
    const file = join(await tempDir(), 'circolare.pdf');
    await writeFile(file, await makeProsePdf(['Circolare', 'Nessun listino qui.']));
    const result = await runCli(['inspect', file, '--no-rows']);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('not a price list or a notice');
  });
});
