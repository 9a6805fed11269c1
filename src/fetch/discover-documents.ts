import { DomHandler, DomUtils, ElementType, Parser } from 'htmlparser2';
import type { AnyNode, Document, Element } from 'domhandler';
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
/** How many enclosing blocks up a date is looked for: a news item is a few levels around its link. */
const CONTEXT_MAX_DEPTH = 8;
/**
 * Elements open at once, at most: the authority's pages nest a few dozen deep. The parser's cost
 * grows with the square of the nesting (200,000 nested blocks took 73 s) and the HTML tools walk
 * the tree recursively, so a deeper page is refused as it is read.
 */
const MAX_NESTING = 1_000;

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
export function discoverDocuments(html: string, pageUrl: string, options: { allowedHosts?: ReadonlySet<string> } = {}): DiscoveredLink[] {
  return linksIn(html, pageUrl, options.allowedHosts ?? new Set([new URL(pageUrl).host]));
}

/** The page's tree, as htmlparser2's parseDocument builds it, refused once more than MAX_NESTING elements are open. */
class BoundedTree extends DomHandler {
  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    // The stack holds the document itself below the open elements.
    if (this.tagStack.length - 1 > MAX_NESTING)
      throw new Error(`the page nests more than ${MAX_NESTING} elements deep: no page of the authority does`);
  }
}

function parsePage(html: string): Document {
  const tree = new BoundedTree();
  new Parser(tree, { decodeEntities: true }).end(html);
  return tree.root;
}

function linksIn(html: string, pageUrl: string, allowedHosts: ReadonlySet<string>): DiscoveredLink[] {
  const document = parsePage(html);
  const base = DomUtils.findOne((el) => el.name === 'base' && !!el.attribs.href, document.children, true)?.attribs.href;
  const baseUrl = base ? (safeUrl(base, pageUrl) ?? pageUrl) : pageUrl;
  const links = new Map<string, DiscoveredLink>();
  const anchors = new Map<Element, string>();
  for (const anchor of DomUtils.findAll((el) => el.name === 'a' && !!el.attribs.href, document.children)) {
    const url = safeUrl(anchor.attribs.href!, baseUrl);
    if (!url || links.has(url) || !followable(url, allowedHosts)) continue;
    const text = DomUtils.textContent(anchor).replace(/\s+/g, ' ').trim() || (anchor.attribs.title ?? '').trim();
    const hintCategory = text ? categoryOfText(text) : null;
    const isDocument = DOCUMENT_PATH.test(new URL(url).pathname) || hintCategory !== null || NOTICE.test(foldText(text));
    if (!isDocument) continue;
    links.set(url, { url, text, page: pageUrl, hintCategory, contextDates: [] });
    anchors.set(anchor, url);
  }
  for (const [anchor, url] of anchors) links.get(url)!.contextDates = datesAround(anchor, anchors);
  return [...links.values()];
}

/** http(s) only, to an allowed host, and without credentials in the address. */
function followable(url: string, allowedHosts: ReadonlySet<string>): boolean {
  const parsed = new URL(url);
  return /^https?:$/.test(parsed.protocol) && allowedHosts.has(parsed.host.toLowerCase()) && !parsed.username && !parsed.password;
}

/** A node's text up to `max` characters (more is not needed, and a page's whole text would make each link cost the page). */
function boundedText(node: AnyNode, max: number): string {
  let text = '';
  // Depth first, each level's next child taken only when reached: a block of 100,000 children costs what is read of it.
  const stack: { node: AnyNode; next: number }[] = [{ node, next: 0 }];
  while (stack.length > 0 && text.length <= max) {
    const top = stack.at(-1)!;
    if (top.node.type === ElementType.Text) {
      text += top.node.data;
      stack.pop();
      continue;
    }
    const children = 'children' in top.node ? (top.node.children as AnyNode[]) : [];
    if (top.next < children.length) stack.push({ node: children[top.next++]!, next: 0 });
    else stack.pop();
  }
  return text;
}

/**
 * The effective dates stated by the link's text, else by the nearest enclosing block that states
 * any: the news item around it, never a block that also links another document (whose date it
 * may be).
 */
function datesAround(anchor: Element, documents: Map<Element, string>): string[] {
  const url = documents.get(anchor);
  let node: AnyNode | null = anchor;
  for (let depth = 0; node && depth < CONTEXT_MAX_DEPTH; depth++) {
    const text = boundedText(node, CONTEXT_MAX_CHARS).replace(/\s+/g, ' ');
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
