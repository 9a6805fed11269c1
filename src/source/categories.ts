/**
 * The authority's product categories: the code used in the feed (Italian, as on the
 * authority's lists) and the code used in the dataset.
 */
export const CATEGORIES = {
  sigarette: 'cigarettes',
  sigari: 'cigars',
  sigaretti: 'cigarillos',
  trinciati: 'rolling_tobacco',
  altri_tabacchi_da_fumo: 'other_smoking_tobacco',
  fiuto_mastico: 'snuff_chewing_tobacco',
  tabacchi_riscaldati: 'heated_tobacco',
  liquidi_inalazione: 'inhalation_liquids',
} as const;

export type FeedCategory = keyof typeof CATEGORIES;
export type Category = (typeof CATEGORIES)[FeedCategory];

export const FEED_CATEGORIES = Object.keys(CATEGORIES) as FeedCategory[];
export const DATASET_CATEGORIES = Object.values(CATEGORIES) as Category[];

/**
 * The categories a release run must find a list of unless the operator names others (setting
 * categories): those of the authority's real lists. Liquids for inhalation are read and published
 * whenever their list is found, but no real list of them has been seen: requiring one would fail every run.
 */
export const REQUIRED_BY_DEFAULT: readonly Category[] = DATASET_CATEGORIES.filter((category) => category !== 'inhalation_liquids');

/** The feed categories of the dataset categories named, in the feed's order; null names the first unknown name. */
export function feedCategoriesOf(names: readonly string[]): { categories: FeedCategory[]; unknown: string | null } {
  const unknown = names.find((name) => !(DATASET_CATEGORIES as readonly string[]).includes(name)) ?? null;
  return { categories: FEED_CATEGORIES.filter((feed) => names.includes(CATEGORIES[feed])), unknown };
}
