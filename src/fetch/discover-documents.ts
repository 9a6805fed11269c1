import { DomUtils, parseDocument } from 'htmlparser2';
import type { FeedCategory } from '../source/categories.ts';
import { categoryNamed, foldText } from '../source/category-names.ts';

/** A link found on one of the authority's pages. */
export interface DiscoveredLink {
  url: string;
  text: string;
  page: string;
}

export interface Discovery {
  /** The current list of each category named by a link, first link on the first page first. */
  lists: Map<FeedCategory, DiscoveredLink>;
  /** Links whose text announces a change of prices (the "novità accise" notices), in page order. */
  notices: DiscoveredLink[];
}

// Words around a category's name in a link's text: "Listino prezzi Sigari (aggiornato al 22/07/2026)".
const NOISE =
  /\b(listino|listini|prezzi|prezzo|di|vendita|al|pubblico|aggiornato|aggiornamento|pdf|kb|mb|scarica|download|del|dal)\b|\b\d+\b/g;
// "Variazione dei prezzi … con decorrenza 1° dicembre 2026", "Nuovi prezzi dal …": a change of prices, with a date.
const NOTICE =
  /\b(variazion\w*|modifica\w*|aument\w*|nuovi)\b.*\bprezz\w*|\bprezz\w*.*\b(variazion\w*|variat\w*|decorrenza|decorrere)\b|\b(con decorrenza|a decorrere)\b/;

/** A link's text with the words that surround a category name dropped. */
function categoryOfText(text: string): FeedCategory | null {
  const direct = categoryNamed(text);
  if (direct) return direct;
  return categoryNamed(foldText(text).replace(NOISE, ' '));
}

/**
 * Finds, in one page of the authority's site, the links to the current price list of each
 * category (by their text: the category's name, possibly with "Listino", a date or a file size)
 * and to price-change notices (text about a change of prices). Addresses are made absolute
 * against the page (and its <base>). Read with a real HTML parser: the site's markup changes.
 */
export function discoverDocuments(html: string, pageUrl: string): Discovery {
  const document = parseDocument(html, { decodeEntities: true });
  const base = DomUtils.findOne((el) => el.name === 'base' && !!el.attribs.href, document.children, true)?.attribs.href;
  const baseUrl = base ? (safeUrl(base, pageUrl) ?? pageUrl) : pageUrl;
  const lists = new Map<FeedCategory, DiscoveredLink>();
  const notices: DiscoveredLink[] = [];
  const seen = new Set<string>();
  for (const anchor of DomUtils.findAll((el) => el.name === 'a' && !!el.attribs.href, document.children)) {
    const url = safeUrl(anchor.attribs.href!, baseUrl);
    if (!url || !/^https?:/.test(url)) continue;
    const text = DomUtils.textContent(anchor).replace(/\s+/g, ' ').trim() || (anchor.attribs.title ?? '').trim();
    if (!text) continue;
    const link = { url, text, page: pageUrl };
    const category = categoryOfText(text);
    if (category) {
      if (!lists.has(category)) lists.set(category, link);
      continue;
    }
    if (NOTICE.test(foldText(text)) && !seen.has(url)) {
      seen.add(url);
      notices.push(link);
    }
  }
  return { lists, notices };
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
