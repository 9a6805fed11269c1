import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { diffReport, FOLD_AFTER, plural, redatingLine, type DiffSection } from './diff-sections.ts';

/** Where the Markdown goes decides its size: a GitHub comment takes 65,536 characters, a GitLab note 1,000,000, a job summary 1 MiB. */
export const MARKDOWN_LIMITS = { github: 65_536, gitlab: 1_000_000, summary: 1_048_576 } as const;

/**
 * A cell's text as GitHub and GitLab both render it literally: the characters Markdown or HTML
 * would read as syntax escaped (`|` would end the cell, `*` and `_` emphasise, `<` open a tag, `&`
 * an entity), a line end a space.
 */
export function markdownCell(text: string): string {
  return text
    .replace(/\r?\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\|*_`[\]#~])/g, '\\$1');
}

/**
 * The diff of two releases as Markdown for a merge request or a job summary: a headline first, the
 * releases, each section a GFM table (long ones folded in `<details>`), the moved dates. It never
 * exceeds `limit` characters: past it, rows stop at a whole row and the cut is said with its count
 * and where the rest is (`tariff diff --json`).
 */
export function renderDiffMarkdown(diff: DatasetDiff, limit: number = MARKDOWN_LIMITS.github): string {
  const report = diffReport(diff);
  const head = [`### ${markdownCell(report.headline)}`, '', `${markdownCell(report.releases)}`, ''];
  if (report.identical) return `${head.join('\n')}\n`;
  const cut = (left: number) =>
    `\n_${left} more row(s) not shown here, to stay within ${limit} characters: \`tariff diff --json\` gives them all._\n`;
  // Room kept for the line that says a cut, whatever the count.
  const budget = limit - cut(Number.MAX_SAFE_INTEGER).length;
  let out = head.join('\n');
  let left = report.sections.reduce((sum, section) => sum + section.rows.length, 0);
  const fits = (text: string) => out.length + text.length <= budget;
  const dates =
    report.redatings.length === 0
      ? ''
      : `\n#### Effective dates (${plural(
          report.redatings.reduce((sum, d) => sum + d.count, 0),
          'product',
        )})\n\n${report.redatings.map((d) => `- ${redatingLine(d)}`).join('\n')}\n`;
  if (fits(dates)) out += dates;
  for (const section of report.sections) {
    const { open, close } = frame(section);
    if (!fits(open + close)) break;
    out += open;
    for (const row of section.rows) {
      const line = `| ${row.map(markdownCell).join(' | ')} |\n`;
      if (!fits(line + close)) break;
      out += line;
      left -= 1;
    }
    out += close;
  }
  return left > 0 ? `${out}${cut(left)}` : out;
}

/** A section's title and table head, and what closes it: folded when long. */
function frame(section: DiffSection): { open: string; close: string } {
  const table = `| ${section.headers.map(markdownCell).join(' | ')} |\n| ${section.headers.map(() => '---').join(' | ')} |\n`;
  const title = `${markdownCell(section.title)} (${section.rows.length})`;
  if (section.rows.length <= FOLD_AFTER) return { open: `\n#### ${title}\n\n${table}`, close: '' };
  // A blank line after <summary> and before </details>: GitHub and GitLab render the table inside as Markdown.
  return { open: `\n<details><summary>${title}</summary>\n\n${table}`, close: '\n</details>\n' };
}
