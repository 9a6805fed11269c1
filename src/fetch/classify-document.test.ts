import { describe, expect, it } from 'vitest';
import { classify, contentState, recordedContent, type DocumentContent } from './classify-document.ts';
import type { DiscoveredLink } from './discover-documents.ts';

const link = (contextDates: string[]): DiscoveredLink => ({
  url: 'https://adm.example/1-ANTEPRIMA.pdf',
  text: '1-ANTEPRIMA.pdf',
  page: 'https://adm.example/news',
  hintCategory: null,
  contextDates,
});
const preview: DocumentContent = { kind: 'notice', statedDate: null, categories: ['cigars'] };

describe('classify', () => {
  it('dates a notice by its own text first, then by the news item around its link, never by guess', () => {
    expect(classify({ ...preview, statedDate: '2026-11-15' }, link(['2026-12-01']))).toMatchObject({ effectiveFrom: '2026-11-15' });
    expect(classify(preview, link(['2026-12-01']))).toMatchObject({ effectiveFrom: '2026-12-01' });
    expect(classify(preview, link([]))).toMatchObject({
      effectiveFrom: null,
      detail: expect.stringMatching(/states no effective date, nor does the page/),
    });
    expect(classify(preview, link(['2026-12-01', '2027-01-01']))).toMatchObject({
      effectiveFrom: null,
      detail: expect.stringMatching(/states several \(2026-12-01, 2027-01-01\)/),
    });
  });

  it('keeps what a document holds in the snapshot state, and reads it back the same (a notice with its own date only)', () => {
    const contents: DocumentContent[] = [
      { kind: 'list', category: 'sigari', effectiveFrom: '2026-07-22' },
      preview,
      { kind: 'campione', detail: "a Campione d'Italia list" },
    ];
    for (const content of contents) {
      const state = { sha256: 'x', fetchedAt: 't', checkedAt: 't', ...contentState(content) };
      expect(recordedContent(state)).toEqual(content);
    }
    expect(recordedContent({ sha256: 'x', fetchedAt: 't', checkedAt: 't', effectiveDates: [] })).toBeNull();
  });
});
