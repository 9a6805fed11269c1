import type { Page } from 'playwright-core';

/** The smallest text and chart label (rendered px), and a target's side (WCAG 2.2, 2.5.8), the pages are held to. */
export const MIN_TEXT_PX = 12;
export const MIN_CHART_LABEL_PX = 12;
export const MIN_TARGET_PX = 24;

/**
 * What in the page, as laid out now, does not fit its width or a reader's eye and thumb, one line
 * each (none: the page passes):
 * - the document scrolls sideways (`scrollWidth` past the viewport);
 * - a word of 2 to 24 characters is broken across two lines (its `Range` has boxes on two lines);
 * - text smaller than 12 px; a chart label drawn smaller than 12 px once its SVG is scaled;
 * - a target (link, button, field) under 24 × 24 px that is neither in a sentence nor spaced so
 *   that a 24 px circle on it meets no other target or undersized target's circle (2.5.8).
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(
    ({ minText, minLabel, minTarget }) => {
      const problems: string[] = [];
      const root = document.documentElement;
      if (root.scrollWidth > window.innerWidth) problems.push(`scrolls sideways: ${root.scrollWidth} px wide in ${window.innerWidth}`);
      /** Laid out and seen: not hidden, and not clipped away for screen readers only (a visually hidden heading). */
      const shown = (element: Element) => {
        if (element.getClientRects().length === 0 || getComputedStyle(element).visibility === 'hidden') return false;
        for (let at: Element | null = element; at; at = at.parentElement) if (getComputedStyle(at).clipPath !== 'none') return false;
        return true;
      };
      const where = (element: Element) =>
        `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${element.classList.length ? `.${[...element.classList].join('.')}` : ''}>`;

      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        const parent = node.parentElement;
        if (!parent || !node.data.trim() || !shown(parent) || parent.closest('script, style, title, desc')) continue;
        const style = getComputedStyle(parent);
        const svg = parent.closest('svg');
        if (svg) {
          const scale = svg.getBoundingClientRect().width / (svg as SVGSVGElement).viewBox.baseVal.width;
          const size = parseFloat(style.fontSize) * scale;
          if (size < minLabel) problems.push(`chart label "${node.data.trim()}" drawn ${size.toFixed(1)} px`);
          continue;
        }
        if (parseFloat(style.fontSize) < minText)
          problems.push(`text "${node.data.trim().slice(0, 30)}" in ${where(parent)} at ${style.fontSize}`);
        for (const match of node.data.matchAll(/[^\s]+/g)) {
          if (match[0].length < 2 || match[0].length > 24) continue;
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const boxes = [...range.getClientRects()].filter((box) => box.width > 0);
          if (boxes.length < 2) continue;
          const tops = boxes.map((box) => box.top);
          const lineHeight = Math.min(...boxes.map((box) => box.height));
          if (Math.max(...tops) - Math.min(...tops) > lineHeight / 2)
            problems.push(`word "${match[0]}" broken across lines in ${where(parent)}`);
        }
      }

      const targets = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')].filter(shown);
      const boxOf = (element: Element) => {
        // A link in an SVG is as large as what it holds.
        const box = element.getBoundingClientRect();
        return { left: box.left, top: box.top, right: box.right, bottom: box.bottom, width: box.width, height: box.height };
      };
      const centre = (box: ReturnType<typeof boxOf>) => ({ x: (box.left + box.right) / 2, y: (box.top + box.bottom) / 2 });
      /** In a sentence: an inline target among other words of its block (2.5.8's inline exception). */
      const inSentence = (element: Element) => {
        if (getComputedStyle(element).display !== 'inline') return false;
        const block = element.parentElement?.closest('p, li, td, th, dd, figcaption, caption, label, legend') ?? element.parentElement;
        const text = (block?.textContent ?? '').replace(element.textContent ?? '', '');
        return /\p{L}{2,}/u.test(text);
      };
      const small = targets.filter((element) => {
        const box = boxOf(element);
        return box.width < minTarget - 0.5 || box.height < minTarget - 0.5;
      });
      const radius = minTarget / 2;
      const circleMeetsBox = (c: { x: number; y: number }, box: ReturnType<typeof boxOf>) => {
        const dx = Math.max(box.left - c.x, 0, c.x - box.right);
        const dy = Math.max(box.top - c.y, 0, c.y - box.bottom);
        return dx * dx + dy * dy < radius * radius - 0.5;
      };
      for (const element of small) {
        if (inSentence(element)) continue;
        const box = boxOf(element);
        const c = centre(box);
        const crowded = targets.some((other) => {
          if (other === element || other.contains(element) || element.contains(other)) return false;
          const otherBox = boxOf(other);
          if (small.includes(other)) {
            const o = centre(otherBox);
            return Math.hypot(c.x - o.x, c.y - o.y) < minTarget - 0.5;
          }
          return circleMeetsBox(c, otherBox);
        });
        if (crowded)
          problems.push(
            `target ${where(element)} "${(element.textContent ?? '').trim().slice(0, 30)}" is ${Math.round(box.width)}×${Math.round(box.height)} px, too near another`,
          );
      }
      return problems;
    },
    { minText: MIN_TEXT_PX, minLabel: MIN_CHART_LABEL_PX, minTarget: MIN_TARGET_PX },
  );
}
