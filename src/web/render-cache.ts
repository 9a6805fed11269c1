import { sha256Hex } from '../util/digests.ts';

/** A rendered page and the ETag that names it. */
export interface Rendered {
  /** Its UTF-8 bytes: half the memory of the string a page with a "€" is held as (two bytes a character), and no encoding per answer. */
  body: Buffer;
  etag: string;
}

/** A page with its ETag: a digest of its bytes. */
export function renderedPage(page: string): Rendered {
  const body = Buffer.from(page, 'utf8');
  return { body, etag: `"${sha256Hex(body).slice(0, 32)}"` };
}

/**
 * Pages rendered once and kept, keyed by what they show: a published version never changes, so its
 * page is the same bytes for every visitor. Bounded: the least recently used page goes first, so
 * a crawler walking every page cannot grow it.
 */
export class RenderCache {
  private readonly pages = new Map<string, Rendered>();

  private readonly maxPages: number;

  constructor(maxPages: number) {
    this.maxPages = maxPages;
  }

  get(key: string, render: () => string): Rendered {
    const kept = this.pages.get(key);
    if (kept) {
      this.pages.delete(key);
      this.pages.set(key, kept);
      return kept;
    }
    const rendered = renderedPage(render());
    this.pages.set(key, rendered);
    if (this.pages.size > this.maxPages) this.pages.delete(this.pages.keys().next().value!);
    return rendered;
  }
}
