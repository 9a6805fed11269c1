import type { NoticeReport } from '../dataset/apply-notices.ts';
import type { Barcode, Dataset } from '../dataset/model.ts';
import type { TariffInForce } from '../dataset/select-tariff.ts';
import type { Manifest } from '../release/manifest.ts';
import type { RenderedRelease } from '../release/render-release.ts';
import type { SetAsideDocument, SourceDocument } from '../source/source-types.ts';

export interface BuildOptions {
  sources: SourceDocument[];
  barcodes: Barcode[];
  /** The day whose tariff in force is built (ISO date, Italian calendar). */
  date: string;
  baseUrl: string;
  previous: Manifest | null;
  /**
   * The previous release's content: the changes are computed against it, and the per-category
   * shrink guard counts its categories. Null when there is none or it cannot be read (the release
   * then carries no changes, and only the total guards against shrinking).
   */
  previousDataset?: Dataset | null;
  /** Versions already published (kept in the bucket): a new version number goes past them. */
  takenVersions?: string[];
  allowShrink: boolean;
  /** The largest percentage of the previous products a release may drop. */
  maxShrinkPercent: number;
  now: () => Date;
  /** A private scratch directory: the SQLite and NeDB engines write real files. */
  scratchDir: string;
  /** Where the release goes, for the build's lines ("var/release", "the bucket …"); memory by default. */
  destination?: string;
  /**
   * The documents of this run that failed to download or read ("cigars list: cannot read the PDF …"):
   * a shrink they explain is said as theirs, never as one to allow with --allow-shrink.
   */
  failedDocuments?: string[];
  /** A rebuild gives the version it rebuilds (`tariff verify --rebuild`); a build decides it from the previous release. */
  version?: string;
}

export interface BuiltRelease extends RenderedRelease {
  skippedBarcodes: Barcode[];
  pending: TariffInForce['pending'];
  notices: NoticeReport[];
  /** Codes a list printed twice with different data: which row was kept, which left out. */
  duplicates: TariffInForce['duplicates'];
  /** Documents read and left out of the national tariff (Campione d'Italia lists). */
  setAside: SetAsideDocument[];
  /** Milliseconds per stage, for the operator and the benchmark. */
  timings: Record<string, number>;
}
