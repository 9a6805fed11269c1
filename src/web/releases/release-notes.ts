import type { Change, Dataset } from '../../dataset/model.ts';
import { DATASET_CATEGORIES, type Category } from '../../source/categories.ts';
import { summariseChanges, type ChangeSummary } from '../../dataset/summarise-changes.ts';
import type { Manifest } from '../../release/manifest.ts';

/** A product line of the public page: what a shop reads to relabel a shelf. */
export interface NoteLine {
  admCode: number;
  name: string;
  pack: string;
  /** Price per pack before, in cents (null for a new product). */
  before: number | null;
  /** Price per pack now, in cents (null for a withdrawn product). */
  after: number | null;
  /** From when the new price or state applies. */
  effectiveFrom: string | null;
  /** For other changes: what changed, in Italian ("nome: A → B"). */
  what?: string;
}

/** The five lists of a release's page, in the order it shows them. */
export const NOTE_LISTS = ['rises', 'cuts', 'added', 'removed', 'other'] as const;
export type NoteList = (typeof NOTE_LISTS)[number];

/**
 * Lines kept per list, in page order (largest moves first): ten pages of the public page. A real
 * release changes a few thousand products at most; the rest of a larger one is counted, not kept,
 * so a release of 200,000 changes cannot grow the service's memory (the dataset has them all).
 */
export const NOTE_LINES_KEPT = 5_000;

/** One release as the public page and the feed show it. */
export interface ReleaseNotes {
  version: string;
  tariffDate: string;
  generatedAt: string;
  products: number;
  barcodes: number;
  changesSince: string | null;
  summary: ChangeSummary;
  rises: NoteLine[];
  cuts: NoteLine[];
  added: NoteLine[];
  removed: NoteLine[];
  other: NoteLine[];
  /** How many lines each list has in all, of which at most NOTE_LINES_KEPT are kept above. */
  totals: Record<NoteList, number>;
  /** Price rises and cuts per category, in the dataset's category order (categories with neither left out). */
  byCategory: { category: Category; rises: number; cuts: number }[];
}

const byLargestMove = (a: NoteLine, b: NoteLine) =>
  Math.abs(b.after! - b.before!) - Math.abs(a.after! - a.before!) || a.admCode - b.admCode;

/**
 * What a release changed, in the shape of the public page: price rises and cuts (largest first),
 * new and withdrawn products, and the other changes. Re-dating and barcodes are counted, not listed:
 * a shop has nothing to relabel for them.
 */
export function releaseNotes(manifest: Manifest, dataset: Pick<Dataset, 'changesSince' | 'changes'>): ReleaseNotes {
  const notes: ReleaseNotes = {
    version: manifest.version,
    tariffDate: manifest.tariffDate,
    generatedAt: manifest.generatedAt,
    products: manifest.counts.products,
    barcodes: manifest.counts.barcodes,
    changesSince: dataset.changesSince,
    summary: summariseChanges(dataset.changes),
    rises: [],
    cuts: [],
    added: [],
    removed: [],
    other: [],
    totals: { rises: 0, cuts: 0, added: 0, removed: 0, other: 0 },
    byCategory: [],
  };
  const moves = new Map<Category, { rises: number; cuts: number }>();
  const moved = (category: Category) => moves.get(category) ?? moves.set(category, { rises: 0, cuts: 0 }).get(category)!;
  for (const change of dataset.changes) {
    const line = (extra: Partial<NoteLine> = {}): NoteLine => ({
      admCode: change.admCode,
      name: (change.name ?? change.oldName)!,
      pack: (change.pack ?? change.oldPack)!,
      before: change.oldPricePerPackCents,
      after: change.pricePerPackCents,
      effectiveFrom: change.effectiveFrom,
      ...extra,
    });
    if (change.kind === 'price_changed') {
      if (change.pricePerPackCents! > change.oldPricePerPackCents!) {
        notes.rises.push(line());
        moved(change.category!).rises++;
      } else if (change.pricePerPackCents! < change.oldPricePerPackCents!) {
        notes.cuts.push(line());
        moved(change.category!).cuts++;
      }
    } else if (change.kind === 'product_added') notes.added.push(line());
    else if (change.kind === 'product_removed') notes.removed.push(line());
    else if (change.kind === 'renamed' || change.kind === 'repacked' || change.kind === 'recategorised')
      notes.other.push(line({ what: otherChange(change) }));
  }
  notes.byCategory = DATASET_CATEGORIES.filter((category) => moves.has(category)).map((category) => ({
    category,
    ...moves.get(category)!,
  }));
  notes.rises.sort(byLargestMove);
  notes.cuts.sort(byLargestMove);
  for (const list of NOTE_LISTS) {
    notes.totals[list] = notes[list].length;
    // A copy, so the kept lines do not hold the whole array's storage.
    if (notes[list].length > NOTE_LINES_KEPT) notes[list] = notes[list].slice(0, NOTE_LINES_KEPT);
  }
  return notes;
}

function otherChange(change: Change): string {
  if (change.kind === 'renamed') return `nome: ${change.oldName} → ${change.name}`;
  if (change.kind === 'repacked') return `confezione: ${change.oldPack} → ${change.pack}`;
  return `categoria: ${change.oldCategory} → ${change.category}`;
}

const ITALIAN: [keyof ChangeSummary, string, string][] = [
  ['priceRises', 'aumento di prezzo', 'aumenti di prezzo'],
  ['priceCuts', 'riduzione di prezzo', 'riduzioni di prezzo'],
  ['added', 'nuovo prodotto', 'nuovi prodotti'],
  ['removed', 'prodotto ritirato', 'prodotti ritirati'],
  ['renamed', 'nome cambiato', 'nomi cambiati'],
  ['repacked', 'confezione cambiata', 'confezioni cambiate'],
  ['recategorised', 'categoria cambiata', 'categorie cambiate'],
  ['otherPriceChanges', 'prezzo al kg cambiato', 'prezzi al kg cambiati'],
  ['redated', 'nuova data di decorrenza', 'nuove date di decorrenza'],
  ['barcodesAdded', 'codice a barre aggiunto', 'codici a barre aggiunti'],
  ['barcodesRemoved', 'codice a barre tolto', 'codici a barre tolti'],
];

/** "3 aumenti di prezzo, 1 nuovo prodotto", or a sentence saying there is nothing. */
export function describeNotesItalian(notes: ReleaseNotes): string {
  if (notes.changesSince === null) return 'Primo rilascio: nessun rilascio precedente con cui confrontarlo.';
  const parts = ITALIAN.filter(([key]) => notes.summary[key] > 0).map(
    ([key, one, many]) => `${notes.summary[key]} ${notes.summary[key] === 1 ? one : many}`,
  );
  return parts.length > 0 ? `${parts.join(', ')}.` : 'Nessuna modifica ai prodotti.';
}
