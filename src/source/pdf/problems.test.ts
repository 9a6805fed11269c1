import { describe, expect, it } from 'vitest';
import { ProblemLog, summariseProblems } from './problems.ts';

describe('a document’s problems in one line', () => {
  it('says a problem shared by many pages once, with its pages, however many there are (a header on every line of 2,000 pages)', () => {
    const problems = Array.from({ length: 200_000 }, (_, i) => ({
      page: (i % 2_000) + 1,
      row: null,
      detail: 'a table with no price column',
    }));
    expect(summariseProblems(problems)).toBe('200000 problem(s): a table with no price column (pages 1–2000)');
  });

  it('names the first rows in error and counts the rest', () => {
    const problems = Array.from({ length: 8 }, (_, i) => ({ page: 1, row: i + 1, what: `codice ${i}`, detail: 'no price' }));
    expect(summariseProblems(problems)).toBe(
      '8 problem(s): page 1 row 1 (codice 0): no price; page 1 row 2 (codice 1): no price; page 1 row 3 (codice 2): no price; ' +
        'page 1 row 4 (codice 3): no price; page 1 row 5 (codice 4): no price; and 3 more',
    );
  });

  it('keeps the first problems of a document and counts the rest, which the line says', () => {
    const log = new ProblemLog(3);
    for (let page = 1; page <= 276_001; page++) log.push({ page, row: null, detail: 'the table has no code column' });
    expect(log.length).toBe(276_001);
    expect(log.omitted).toBe(275_998);
    expect([...log]).toHaveLength(3);
    expect(JSON.parse(JSON.stringify(log))).toHaveLength(3);
    expect(summariseProblems(log)).toBe(
      '276001 problem(s): the table has no code column (pages 1–3); 275998 more past the first 3, not kept',
    );
  });
});
