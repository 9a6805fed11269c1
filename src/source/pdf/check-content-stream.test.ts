import { describe, expect, it } from 'vitest';
import { contentStreamFault } from './check-content-stream.ts';

const fault = (text: string) => contentStreamFault(Buffer.from(text, 'latin1'));

describe('contentStreamFault', () => {
  it('passes a content stream as a list writes one: marked content, text, paths, arrays and strings', () => {
    expect(
      fault(
        '/P <</MCID 0>> BDC q 0.5 0 0 RG 1 w 10 10 m 20 20 l S Q BT /F1 7.56 Tf 1 0 0 1 72 700 Tm (SIGARO \\(TOSCANO\\)) Tj [(A) -20 (B)] TJ ET EMC',
      ),
    ).toBeNull();
    expect(fault('q BI /W 2 /H 1 /BPC 8 /CS /G ID \x00\xff EI Q')).toBeNull();
  });

  it('names an operator no PDF has, as a changed byte makes one', () => {
    expect(fault('BT /F1 12 Tf 72 712 Td (Hello) Tk ET')).toBe('an operator no PDF has ("Tk") at byte 31');
  });

  it('names an operator with a wrong count of operands', () => {
    expect(fault('BT /F1 12 Tf 72 Td (Hello) Tj ET')).toBe('"Td" with 1 operand(s) where it takes 2, at byte 16');
  });

  it('names a stream cut inside a string, a text object left open, a state restored unsaved', () => {
    expect(fault('BT /F1 12 Tf (Hel')).toMatch(/^a string is not closed/);
    expect(fault('BT /F1 12 Tf (Hello) Tj')).toBe('it ends inside a text object (BT with no ET)');
    expect(fault('Q')).toBe('a graphics state restored that was not saved (Q) at byte 0');
    expect(fault('1 2')).toBe('it ends with 2 operand(s) and no operator');
  });
});
