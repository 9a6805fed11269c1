import { describe, expect, it } from 'vitest';
import { errors, internalError, isTariffError, TariffError } from './errors.ts';

describe('the error catalogue', () => {
  it('narrows by code: only the code asked for, and only the catalogue’s errors', () => {
    const failed = errors.fetchFailed('https://www.adm.gov.it/x.pdf', 'HTTP 404');
    expect(isTariffError(failed)).toBe(true);
    expect(isTariffError(failed, 'fetch_failed')).toBe(true);
    expect(isTariffError(failed, 'bucket_failed')).toBe(false);
    expect(isTariffError(Object.assign(new Error('x'), { code: 'fetch_failed' }), 'fetch_failed')).toBe(false);
    // @ts-expect-error a hint's variant is not a code: no error carries it, so asking for it does not compile
    expect(isTariffError(failed, 'category_shrink_refused')).toBe(false);
    // @ts-expect-error nor does a code that does not exist
    void new TariffError('no_such_code', 'message');
  });

  it('keeps one code where the remedy differs, and names the values a message holds for other languages', () => {
    expect(errors.categoryShrinkRefused('sigari', 10, 20, 20)).toMatchObject({
      code: 'shrink_refused',
      hint: expect.stringContaining('category'),
    });
    expect(errors.syncRefused('https://x/v1', 401, 'invalid_api_key', 'no')).toMatchObject({ code: 'sync_invalid_api_key' });
    expect(errors.accountNotFound('a@b.it').params).toEqual({ email: 'a@b.it' });
    expect(internalError(new Error('boom'))).toMatchObject({ code: 'internal_error', hint: expect.stringContaining('bug') });
  });
});
