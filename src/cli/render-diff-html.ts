import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { escapeHtml } from '../web/html.ts';
import { diffReport, FOLD_AFTER, plural, redatingLine } from './diff-sections.ts';

/**
 * The diff of two releases as one self-contained page (no script, no file beside it) a pipeline
 * keeps as an artifact: the headline, the releases, each section a table, long ones folded. Read
 * on a phone too: a wide table scrolls inside its own box, never the page.
 */
export function renderDiffHtml(diff: DatasetDiff): string {
  const report = diffReport(diff);
  // Names wrap anywhere (a 500-character name must not push the prices off a phone); the other cells never.
  const table = (label: string, headers: string[], rows: string[][]) => {
    const names = headers.map((header) => header.includes('name'));
    const cell = (text: string, i: number) => `<td${names[i] ? ' class="name"' : ''}>${escapeHtml(text)}</td>`;
    // A wide table scrolls in its own box, which a keyboard reaches (tabindex) and a screen reader names.
    return `<div class="table" tabindex="0" role="region" aria-label="${escapeHtml(label)}"><table><thead><tr>${headers.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>
${rows.map((row) => `<tr>${row.map(cell).join('')}</tr>`).join('\n')}
</tbody></table></div>`;
  };
  const sections = report.sections.map((section) => {
    const title = `${escapeHtml(section.title)} (${section.rows.length})`;
    const head = table(section.title, section.headers, section.rows.slice(0, FOLD_AFTER));
    // Its head shown, the largest changes; the rest folded.
    const rest = section.rows.length - FOLD_AFTER;
    const folded =
      rest > 0
        ? `\n<details><summary>${escapeHtml(plural(rest, 'more row'))}</summary>\n${table(`${section.title}, the rest`, section.headers, section.rows.slice(FOLD_AFTER))}\n</details>`
        : '';
    return `<section><h2>${title}</h2>\n${head}${folded}\n</section>`;
  });
  const summary =
    report.summary.rows.length === 0
      ? ''
      : `<section><h2>By category</h2>\n${table('By category', report.summary.headers, report.summary.rows)}\n</section>`;
  const dates =
    report.redatings.length === 0
      ? ''
      : `<section><h2>Effective dates</h2><ul>${report.redatings
          .map((d) => `<li>${escapeHtml(redatingLine(d))}</li>`)
          .join('')}</ul></section>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(report.releases)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; padding: 1rem; max-width: 70rem; color: #1a1a1a; background: #fff; overflow-wrap: anywhere; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; margin: 1rem 0 .5rem; }
summary { cursor: pointer; margin: .5rem 0; }
.table { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: .9rem; } th, td { border: 1px solid #bbb; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #eee; } td { white-space: nowrap; } td.name { white-space: normal; overflow-wrap: anywhere; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(report.headline)}</h1>
<p>${escapeHtml(report.releases)}</p>
${report.identical ? '<p>Identical content.</p>' : [summary, dates, ...sections].filter(Boolean).join('\n')}
</main>
</body>
</html>
`;
}
