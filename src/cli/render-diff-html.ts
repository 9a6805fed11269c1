import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { escapeHtml } from '../web/html.ts';
import { diffReport, FOLD_AFTER, redatingLine } from './diff-sections.ts';

/**
 * The diff of two releases as one self-contained page (no script, no file beside it) a pipeline
 * keeps as an artifact: the headline, the releases, each section a table, long ones folded. Read
 * on a phone too: a wide table scrolls inside its own box, never the page.
 */
export function renderDiffHtml(diff: DatasetDiff): string {
  const report = diffReport(diff);
  const sections = report.sections.map((section) => {
    // A wide table scrolls in its own box, which a keyboard reaches (tabindex) and a screen reader names.
    const table = `<div class="table" tabindex="0" role="region" aria-label="${escapeHtml(section.title)}"><table><thead><tr>${section.headers.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>
${section.rows.map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`).join('\n')}
</tbody></table></div>`;
    const title = `${escapeHtml(section.title)} (${section.rows.length})`;
    return section.rows.length > FOLD_AFTER
      ? `<section><details><summary><h2>${title}</h2></summary>\n${table}\n</details></section>`
      : `<section><h2>${title}</h2>\n${table}\n</section>`;
  });
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
h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; display: inline; }
summary { cursor: pointer; margin: 1rem 0 .5rem; } section > h2 { display: block; margin: 1rem 0 .5rem; }
.table { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: .9rem; } th, td { border: 1px solid #bbb; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #eee; } td { overflow-wrap: normal; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(report.headline)}</h1>
<p>${escapeHtml(report.releases)}</p>
${report.identical ? '<p>Identical content.</p>' : [dates, ...sections].filter(Boolean).join('\n')}
</main>
</body>
</html>
`;
}
