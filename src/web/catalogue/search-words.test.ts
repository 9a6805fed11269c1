import { describe, expect, it } from 'vitest';
import { farEdits, indexTerms, nearEdits, searchWords } from './search-words.ts';

describe('the words of a search', () => {
  it('folds accents, case, punctuation and the ordinal and degree signs', () => {
    expect(searchWords('Caffè  NERO-extra')).toEqual(['caffe', 'nero', 'extra']);
    expect(searchWords('ANTICO TOSCANO 50° ANNIVERSARIO')).toEqual(['antico', 'toscano', '50', 'anniversario']);
    expect(searchWords('2ª serie')).toEqual(['2', 'serie']);
  });

  it('keeps a number with its designator however it is written', () => {
    for (const text of ['N. 2', 'N.2', 'N°2', 'N° 2', 'nº 2', 'Nº2', 'No. 2', 'NO 2', 'nr 2', 'n2', 'N 2'])
      expect(searchWords(`epicure ${text}`), text).toEqual(['epicure', 'n2']);
    // Not before a word: "no" and "n" stay words.
    expect(searchWords('no filter n x')).toEqual(['no', 'filter', 'n', 'x']);
  });

  it('indexes a designated number also alone, so "epicure 2" still finds EPICURE N. 2', () => {
    expect(indexTerms('EPICURE N. 2')).toEqual(['epicure', 'n2', '2']);
  });

  it('forgives one edit in five to eight letters, two from nine, more only as a last resort; none in short words or numbers', () => {
    expect(['tosc', 'tosca', 'toscano!', 'monterrey', '12345', 'n12345'].map((w) => [nearEdits(w), farEdits(w)])).toEqual([
      [0, 0],
      [1, 2],
      [0, 0],
      [2, 3],
      [0, 0],
      [0, 0],
    ]);
    expect([nearEdits('toscano'), farEdits('toscano')]).toEqual([1, 2]);
  });
});
