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
