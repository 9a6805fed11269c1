import { describe, expect, it } from 'vitest';
import { failedReport } from '../fetch/fetch-all.ts';
import { describeCoverage, describeReport } from './describe-sources.ts';

describe('describeReport', () => {
  it('says an unchanged list once, with its date and where it stands, without nested brackets', () => {
    const line = describeReport({
      url: 'https://adm.example/2-LIST-22-07-2026.pdf',
      label: 'cigars list',
      status: 'unchanged',
      sha256: 'a'.repeat(64),
      effectiveDates: [{ date: '2026-07-22', when: 'past' }],
      newTariff: false,
      attempts: 1,
    });
    expect(line).toBe('cigars list https://adm.example/2-LIST-22-07-2026.pdf unchanged, in force from 2026-07-22 (past)');
  });

  it('names a missing list by its category, never by the pages it was looked for on', () => {
    const line = describeReport(
      failedReport('', 'none of the 9 document(s) linked from https://adm.example/prezzi is the cigars list', { label: 'cigars list' }),
    );
    expect(line).toBe('cigars list failed: none of the 9 document(s) linked from https://adm.example/prezzi is the cigars list');
  });
});

describe('describeCoverage', () => {
  it('names the lists found and, of those not found, whether the run required them', () => {
    const line = describeCoverage({ required: ['cigars', 'cigarettes'], found: ['cigars'], missing: ['cigarettes', 'inhalation_liquids'] });
    expect(line).toBe('lists found: cigars; not found: cigarettes (required), inhalation_liquids (not required)');
  });
});
