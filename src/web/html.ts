import { printable } from '../util/clean-text.ts';

/** HTML that is already safe to insert (built by `html`). */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escaped for HTML, and without the characters no page should show (a bidi override reverses a line's prices). */
export function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * Template tag that escapes every interpolated value unless it is SafeHtml (or an array of it):
 * the pages never build markup from unescaped strings.
 *
 * @example html`<p>${userInput}</p>`
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}
