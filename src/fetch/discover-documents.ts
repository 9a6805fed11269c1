import { DomUtils, parseDocument } from 'htmlparser2';
import type { AnyNode, Element } from 'domhandler';
import type { FeedCategory } from '../source/categories.ts';
import { categoryNamed, foldText } from '../source/category-names.ts';
import { effectiveDatesIn } from '../source/italian-dates.ts';

/** A link to a document found on one of the authority's pages. */
export interface DiscoveredLink {
  url: string;
  text: string;
  page: string;
  /** The category the link's text names, if any: only a hint, the document's content decides. */
  hintCategory: FeedCategory | null;
  /**
   * The effective dates stated around the link ("con decorrenza dal 1° dicembre 2026" in the news
   * item that links a notice): the date of a notice that states none itself.
   */
  contextDates: string[];
}

// Words around a category's name in a link's text: "Listino prezzi Sigari (aggiornato al 22/07/2026)".
const NOISE =
  /\b(listino|listini|prezzi|prezzo|di|vendita|al|pubblico|aggiornato|aggiornamento|pdf|kb|mb|scarica|download|del|dal)\b|\b\d+\b/g;
// "Variazione dei prezzi … con decorrenza 1° dicembre 2026", "Nuovi prezzi dal …": a change of prices.
const NOTICE =
  /\b(variazion\w*|modifica\w*|aument\w*|nuovi)\b.*\bprezz\w*|\bprezz\w*.*\b(variazion\w*|variat\w*|decorrenza|decorrere)\b|\b(con decorrenza|a decorrere)\b/;
// The authority's document addresses: ".../2-LIST-22-07-2026.pdf", ".../Sigari.pdf/0f1c2d3e-…".
const DOCUMENT_PATH = /\.pdf(\/|$)/i;
/** The surroundings searched for a date: a news item, not the whole page (which may name other dates). */
const CONTEXT_MAX_CHARS = 2000;

/** A link's text with the words that surround a category name dropped. */
function categoryOfText(text: string): FeedCategory | null {
  return categoryNamed(text) ?? categoryNamed(foldText(text).replace(NOISE, ' '));
}

/**
 * Finds, in one page of the authority's site, every link to a document: any address of a PDF,
 * and any link whose text names a category or a change of prices (the site's addresses may have
 * no extension). What each document is comes from its content, not from here; each link keeps
 * what its text suggests and the dates its surroundings state. Addresses are made absolute
 * against the page (and its <base>). Read with a real HTML parser: the site's markup changes.
 */
export function discoverDocuments(html: string, pageUrl: string): DiscoveredLink[] {
  const document = parseDocument(html, { decodeEntities: true });
  const base = DomUtils.findOne((el) => el.name === 'base' && !!el.attribs.href, document.children, true)?.attribs.href;
  const baseUrl = base ? (safeUrl(base, pageUrl) ?? pageUrl) : pageUrl;
  const links: DiscoveredLink[] = [];
  const seen = new Set<string>();
  const anchors = new Map<Element, string>();
  for (const anchor of DomUtils.findAll((el) => el.name === 'a' && !!el.attribs.href, document.children)) {
    const url = safeUrl(anchor.attribs.href!, baseUrl);
    if (!url || !/^https?:/.test(url) || seen.has(url)) continue;
    const text = DomUtils.textContent(anchor).replace(/\s+/g, ' ').trim() || (anchor.attribs.title ?? '').trim();
    const hintCategory = text ? categoryOfText(text) : null;
    const isDocument = DOCUMENT_PATH.test(new URL(url).pathname) || hintCategory !== null || NOTICE.test(foldText(text));
    if (!isDocument) continue;
    seen.add(url);
    links.push({ url, text, page: pageUrl, hintCategory, contextDates: [] });
    anchors.set(anchor, url);
  }
  for (const [anchor, url] of anchors) links.find((link) => link.url === url)!.contextDates = datesAround(anchor, anchors);
  return links;
}

/**
 * The effective dates stated by the link's text, else by the nearest enclosing block that states
 * any: the news item around it, never a block that also links another document (whose date it
 * may be).
 */
function datesAround(anchor: Element, documents: Map<Element, string>): string[] {
  const url = documents.get(anchor);
  let node: AnyNode | null = anchor;
  while (node) {
    const text = DomUtils.textContent(node).replace(/\s+/g, ' ');
    if (text.length > CONTEXT_MAX_CHARS) break;
    const others = DomUtils.findAll((el) => documents.has(el) && documents.get(el) !== url, [node]);
    if (others.length > 0) break;
    const dates = effectiveDatesIn(text);
    if (dates.length > 0) return dates;
    node = node.parent as AnyNode | null;
    if (node && node.type === 'root') break;
  }
  return [];
}

function safeUrl(href: string, base: string): string | null {
  try {
    const url = new URL(href.trim(), base);
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}
