import { describe, expect, it } from 'vitest';
import { parseBarcodeList } from './parse-barcode-list.ts';

describe('parseBarcodeList', () => {
  it('reads the documented format with defaults, comments and canonical GTINs', () => {
    const text =
      '# approved\nbarcode,admCode,kind,units\n8001001001005,1001,pack,1\n\n08001001001012,1001,carton,10\n8001001002002,1002,,\n';
    expect(parseBarcodeList(text, 'b.csv')).toEqual([
      { barcode: '8001001001005', admCode: 1001, kind: 'pack', units: 1 },
      { barcode: '8001001001012', admCode: 1001, kind: 'carton', units: 10 },
      { barcode: '8001001002002', admCode: 1002, kind: 'pack', units: 1 },
    ]);
  });

  it('accepts semicolons (Italian spreadsheets) and columns in any order', () => {
    expect(parseBarcodeList('admCode;barcode\r\n1001;8001001001005\r\n', 'b.csv')).toEqual([
      { barcode: '8001001001005', admCode: 1001, kind: 'pack', units: 1 },
    ]);
  });

  it('keeps one row for one GTIN written twice with the same match', () => {
    expect(parseBarcodeList('barcode,admCode\n8001001001005,1\n08001001001005,1\n', 'b.csv')).toHaveLength(1);
  });

  it('names the file and line of every bad row', () => {
    const text =
      'barcode,admCode,kind,units\n8001001001006,1,pack,1\n8001001001005,x,pack,1\n8001001001012,1,box,1\n8001001002002,1,carton,1\n8001001003009,1,pack,2\n';
    expect(() => parseBarcodeList(text, 'b.csv')).toThrow(
      expect.objectContaining({
        code: 'barcodes_invalid',
        message: expect.stringMatching(
          /b\.csv line 2: barcode "8001001001006": invalid_checksum[\s\S]*line 3: admCode "x"[\s\S]*line 4: invalid_kind[\s\S]*line 5: invalid_units[\s\S]*line 6: invalid_units/,
        ),
      }),
    );
  });

  it('refuses one barcode with two different matches', () => {
    expect(() => parseBarcodeList('barcode,admCode\n8001001001005,1\n8001001001005,2\n', 'b.csv')).toThrow(
      /line 3: barcode 8001001001005 is also on line 2/,
    );
  });

  it('refuses a header without the required columns', () => {
    expect(() => parseBarcodeList('ean,code\n', 'b.csv')).toThrow(/b\.csv line 1: the header must name the columns barcode and admCode/);
  });
});
