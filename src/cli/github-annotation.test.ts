import { describe, expect, it } from 'vitest';
import { githubAnnotation } from './main.ts';

describe('a failure as a GitHub Actions annotation', () => {
  it('escapes what the workflow command format reserves, and drops what a terminal would obey', () => {
    expect(githubAnnotation('error', 'tariff source_invalid', 'sigari.pdf: 100% wrong\nsecond line')).toBe(
      '::error title=tariff source_invalid::sigari.pdf: 100%25 wrong%0Asecond line',
    );
    expect(githubAnnotation('warning', 'a: b, c', 'x')).toBe('::warning title=a%3A b%2C c::x');
    expect(githubAnnotation('error', 't', 'name\u001b[2J')).toBe('::error title=t::name[2J');
  });
});
