import { html, type SafeHtml } from '../html.ts';

/** One bar pair: how many prices rose and fell in a group (a category). */
export interface BarRow {
  label: string;
  rises: number;
  cuts: number;
}

const BAR_HEIGHT = 20;

/**
 * A drawing for a range of widths, in SVG units (it scales to the width it gets): text sized so
 * that at the narrowest width it is shown at it is 12 px. Wide (from 40rem, 546 px of section at
 * least): the label left of its bars; narrow (263 px at 320): the label above them, over as many
 * lines as it needs.
 */
interface Frame {
  name: 'wide' | 'narrow';
  width: number;
  fontSize: number;
  /** Where the bars start, and the units left for the longest; labels are wrapped at `labelChars`. */
  barsFrom: number;
  barWidth: number;
  labelChars: number;
}

const FRAMES: Frame[] = [
  { name: 'wide', width: 610, fontSize: 14, barsFrom: 250, barWidth: 300, labelChars: 28 },
  { name: 'narrow', width: 320, fontSize: 15, barsFrom: 0, barWidth: 270, labelChars: 30 },
];

/** A label cut into lines of at most `chars` characters, between words. */
function lines(label: string, chars: number): string[] {
  const out: string[] = [];
  for (const word of label.split(' ')) {
    const last = out.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= chars) out[out.length - 1] = `${last} ${word}`;
    else out.push(word);
  }
  return out;
}

/**
 * Rises and cuts per group as horizontal bars (rises above cuts), drawn on the server, twice (for
 * a wide and a narrow screen: style.css shows one); the table the page puts after it holds the
 * same counts for screen readers and for copying.
 */
export function changeBars(rows: BarRow[], title: string): SafeHtml {
  if (rows.length === 0) return html``;
  return html`<figure class="chart">${FRAMES.map((frame) => drawBars(frame, rows, title))}
<figcaption class="muted"><span class="key-up">■</span> aumenti · <span class="key-down">■</span> riduzioni</figcaption>
</figure>`;
}

function drawBars(frame: Frame, rows: BarRow[], title: string): SafeHtml {
  const most = Math.max(1, ...rows.flatMap((row) => [row.rises, row.cuts]));
  const lineHeight = Math.round(frame.fontSize * 1.3);
  const bar = (value: number, top: number, kind: 'up' | 'down') => {
    const width = Math.max(value > 0 ? 2 : 0, Math.round((value / most) * frame.barWidth));
    return html`<rect class="${kind}" x="${frame.barsFrom}" y="${top}" width="${width}" height="${BAR_HEIGHT}" data-count="${value}"></rect><text x="${frame.barsFrom + width + 6}" y="${top + BAR_HEIGHT / 2 + frame.fontSize / 3}">${value}</text>`;
  };
  let top = 4;
  const groups = rows.map((row) => {
    const labelLines = lines(row.label, frame.labelChars);
    // Wide: the label beside the bars, centred on them; narrow: above them.
    const beside = frame.barsFrom > 0;
    const barsTop = beside ? top : top + labelLines.length * lineHeight + 4;
    const labelTop = beside ? top + BAR_HEIGHT + 2 - ((labelLines.length - 1) * lineHeight) / 2 : top + frame.fontSize;
    const label = labelLines.map(
      (text, i) =>
        html`<text x="${beside ? frame.barsFrom - 8 : 0}" y="${labelTop + i * lineHeight}"${beside ? html` text-anchor="end"` : ''}>${text}</text>`,
    );
    const group = html`<g class="bars" data-label="${row.label}">${label}${bar(row.rises, barsTop, 'up')}${bar(row.cuts, barsTop + BAR_HEIGHT + 4, 'down')}</g>`;
    top = barsTop + 2 * BAR_HEIGHT + 4 + 16;
    return group;
  });
  return html`<svg class="${frame.name}" viewBox="0 0 ${frame.width} ${top}" role="img" aria-label="${title}" font-size="${frame.fontSize}" xmlns="http://www.w3.org/2000/svg">
${groups}
</svg>`;
}
