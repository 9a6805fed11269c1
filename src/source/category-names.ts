import type { FeedCategory } from './categories.ts';

/**
 * The names the authority gives its categories in list headers and on its price page, folded
 * (lower case, no accents, single spaces), each with the category it stands for.
 */
const NAMES: [string, FeedCategory][] = [
  ['sigarette', 'sigarette'],
  ['sigari', 'sigari'],
  ['sigaretti', 'sigaretti'],
  ['trinciati', 'trinciati'],
  ['trinciati per sigarette', 'trinciati'],
  ['trinciato per sigarette', 'trinciati'],
  ['trinciato', 'trinciati'],
  ['trinciati per arrotolare le sigarette', 'trinciati'],
  ['tabacco trinciato a taglio fino da usarsi per arrotolare le sigarette', 'trinciati'],
  ['altri tabacchi da fumo', 'altri_tabacchi_da_fumo'],
  ['altri tabacchi da fumo e da pipa', 'altri_tabacchi_da_fumo'],
  ['fiuto e mastico', 'fiuto_mastico'],
  ['tabacchi da fiuto e da mastico', 'fiuto_mastico'],
  ['tabacco da fiuto e da mastico', 'fiuto_mastico'],
  ['fiuto', 'fiuto_mastico'],
  ['prodotti da inalazione senza combustione', 'tabacchi_riscaldati'],
  ['prodotti da inalare senza combustione', 'tabacchi_riscaldati'],
  ['tabacchi da inalazione senza combustione', 'tabacchi_riscaldati'],
  ['liquidi da inalazione', 'liquidi_inalazione'],
  ['prodotti liquidi da inalazione', 'liquidi_inalazione'],
  ['liquidi da inalazione senza combustione', 'liquidi_inalazione'],
];

const BY_NAME = new Map(NAMES);

/** Folds text for comparison: lower case, accents and punctuation dropped, single spaces. */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The category a header or link text names exactly, or null. @example categoryNamed('Sigari') === 'sigari' */
export function categoryNamed(text: string): FeedCategory | null {
  return BY_NAME.get(foldText(text)) ?? null;
}

/** The names the builder knows, for error messages. */
export const CATEGORY_NAMES = NAMES.map(([name]) => name);
