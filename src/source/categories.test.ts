import { describe, expect, it } from 'vitest';
import { feedCategoriesOf, REQUIRED_BY_DEFAULT } from './categories.ts';

describe('feedCategoriesOf', () => {
  it('maps dataset names to the feed categories, in the feed order, and names the first unknown one', () => {
    expect(feedCategoriesOf(['heated_tobacco', 'cigars'])).toEqual({ categories: ['sigari', 'tabacchi_riscaldati'], unknown: null });
    expect(feedCategoriesOf(['cigars', 'sigari', 'liquids'])).toEqual({ categories: ['sigari'], unknown: 'sigari' });
  });

  it('requires by default the seven categories of the real lists, not the liquids', () => {
    expect(feedCategoriesOf(REQUIRED_BY_DEFAULT).categories).toHaveLength(7);
    expect(REQUIRED_BY_DEFAULT).not.toContain('inhalation_liquids');
  });
});
