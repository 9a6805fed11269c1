import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makePageDag } from '../../../fixtures/adm-pdf.ts';
import { makeIncrementalUpdates } from '../../../fixtures/hostile-pdfs.ts';
import { checkPdfStructure } from './check-structure.ts';
import { READER_LIMITS } from './reader-tolerances.ts';

const check = (bytes: Buffer, limits = {}) => checkPdfStructure(bytes, { ...READER_LIMITS, ...limits });
const deflated = (content: string) =>
  makePageDag(1, 1, { content: deflateSync(Buffer.from(content, 'latin1')).toString('latin1'), filter: '/Filter /FlateDecode ' });

describe('checkPdfStructure', () => {
  it('passes a whole document, plain or compressed', () => {
    expect(check(makePageDag(1, 1))).toBeNull();
    expect(check(deflated('BT /F1 12 Tf 72 712 Td (Hello) Tj ET'))).toBeNull();
  });

  it('refuses a document an object of which is not where its cross-reference entry says (a reader would repair it)', () => {
    const pdf = makePageDag(1, 1).toString('latin1');
    // Object 2's entry, one byte off: the third line of the table.
    const moved = pdf.replace(
      /(xref\n0 \d+\n.{20}.{20})(\d{10})/s,
      (_, head: string, offset: string) => `${head}${String(Number(offset) + 1).padStart(10, '0')}`,
    );
    expect(moved).not.toBe(pdf);
    expect(check(Buffer.from(moved, 'latin1'))).toEqual({
      reason: 'damaged',
      detail: expect.stringMatching(/^object 2 is not where its cross-reference entry says/),
    });
  });

  it('refuses a compressed stream whose checksum (Adler-32) fails, and one cut short', () => {
    const pdf = deflated('BT /F1 12 Tf 72 712 Td (Hello) Tj ET');
    const start = pdf.indexOf('stream\n') + 7;
    const end = pdf.indexOf('\nendstream');
    const flipped = Buffer.from(pdf);
    flipped[end - 2]! ^= 0x40;
    expect(check(flipped)).toEqual({ reason: 'damaged', detail: 'object 4: its compressed stream fails its checksum (Adler-32)' });
    expect(end - start).toBeGreaterThan(8);
  });

  it('refuses a stream that does not end where its /Length says', () => {
    const pdf = makePageDag(1, 1);
    const wrong = Buffer.from(
      pdf.toString('latin1').replace(/\/Length (\d+)/, (_, n: string) => `/Length ${Number(n) - 1}`.padEnd(`/Length ${n}`.length)),
      'latin1',
    );
    expect(check(wrong)).toEqual({
      reason: 'damaged',
      detail: expect.stringMatching(/^object 4: its stream does not end where its \/Length \(\d+\) says/),
    });
  });

  it('refuses a file cut short, and one that is no PDF', () => {
    const pdf = makePageDag(1, 1);
    expect(check(pdf.subarray(0, pdf.length - 30))?.detail).toMatch(/^it does not end as a PDF ends/);
    expect(check(Buffer.from('<html></html>'))?.detail).toBe('it does not begin as a PDF (no %PDF- header)');
  });

  it('refuses a page whose content, stored with no checksum, does not parse; a compressed one is as its checksum says', () => {
    expect(check(deflated('BT /F1 12 Tf 72 712 Td (Hello) Tk ET'))).toBeNull();
    expect(check(makePageDag(1, 1, { content: 'BT /F1 12 Tf 72 712 Td (Hello) Tk ET' }))).toEqual({
      reason: 'damaged',
      detail: 'the content of page object 3 does not parse: an operator no PDF has ("Tk") at byte 31',
    });
  });

  it('counts cross-reference sections and bytes unpacked, refusing past a count, never by the clock', () => {
    expect(check(makeIncrementalUpdates(2_000))).toEqual({
      reason: 'too_large',
      detail: 'it has more than 1000 cross-reference sections (updates): no price list does',
    });
    expect(check(deflated(`BT ${'(x) Tj '.repeat(100_000)} ET`), { inflatedBytesPerStream: 100_000 })).toEqual({
      reason: 'too_large',
      detail: expect.stringMatching(/^object 4: its stream unpacks to more than 0\.09\d* MB: no price list does$/),
    });
  });
});
