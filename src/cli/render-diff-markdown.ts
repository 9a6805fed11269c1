import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { diffReport, FOLD_AFTER, plural, redatingLine, type DiffSection } from './diff-sections.ts';

/**
 * Where the Markdown goes decides its size: a GitHub comment takes 65,536 characters, a GitLab
 * note 1,000,000, a GitHub job summary 1 MiB (bytes, not characters: an accented name counts twice).
 */
export const MARKDOWN_LIMITS = { github: 65_536, gitlab: 1_000_000, summaryBytes: 1_048_576 } as const;

/** How large the Markdown may be: in characters, in UTF-8 bytes, or both; each is never exceeded, headline included. */
export interface MarkdownBudget {
  chars?: number;
  bytes?: number;
}

/**
 * Put after a character that GitHub or GitLab would read as the start of a mention (`@name`), a
 * reference (`#1`, `!1`, `%milestone`, `&1`, `~label`, `$1`), an emoji code (`:+1:`), math (`$x$`)
 * or a link's scheme (`https://`): a zero-width space, as well-known bots do, so a product's name
 * renders as itself and notifies, links and references no one.
 */
const ZERO_WIDTH_SPACE = '\u200B';

/**
 * A cell's text as GitHub and GitLab both render it literally and harmlessly: what Markdown or
 * HTML would read as syntax escaped (`|` would end the cell, `*` and `_` emphasise, `<` open a tag,
 * `&` an entity, `$` open math), what the platforms read as a mention, a reference, an emoji or
 * an autolink broken by a zero-width space, a line end a space.
 */
export function markdownCell(text: string): string {
  return text
    .replace(/\r?\n/g, ' ')
    .replace(/([@#!%&~$:])(?=[\p{L}\p{N}_"'+\-/.(])/gu, `$1${ZERO_WIDTH_SPACE}`)
    .replace(/\b(www)\./gi, `$1${ZERO_WIDTH_SPACE}.`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\|*_`[\]#~$!])/g, '\\$1');
}

/** Sizes kept side by side: characters (UTF-16 units, never fewer than GitHub counts) and UTF-8 bytes. */
type Size = { chars: number; bytes: number };
const sizeOf = (text: string): Size => ({ chars: text.length, bytes: Buffer.byteLength(text) });
const total = (sizes: Size[]): Size =>
  sizes.reduce((sum, size) => ({ chars: sum.chars + size.chars, bytes: sum.bytes + size.bytes }), { chars: 0, bytes: 0 });

/**
 * The diff of two releases as Markdown for a merge request or a job summary: the headline, the
 * releases, the counts per category, the moved dates, then each section a GFM table (price changes
 * first, largest first), its first rows shown and the rest folded in `<details>`. Within the budget
 * every section keeps its head: rows are taken a round at a time, one per section, so no section
 * swallows the room of those after it; what is left out is named section by section.
 */
export function renderDiffMarkdown(diff: DatasetDiff, budget: MarkdownBudget = { chars: MARKDOWN_LIMITS.github }): string {
  const report = diffReport(diff);
  const limit: Size = { chars: budget.chars ?? Infinity, bytes: budget.bytes ?? Infinity };
  const used: Size = { chars: 0, bytes: 0 };
  const fits = (size: Size, room: Size = limit) => used.chars + size.chars <= room.chars && used.bytes + size.bytes <= room.bytes;
  const parts: string[] = [];
  const add = (text: string) => {
    parts.push(text);
    const size = sizeOf(text);
    used.chars += size.chars;
    used.bytes += size.bytes;
  };

  const headline = `### ${markdownCell(report.headline)}\n`;
  if (!fits(sizeOf(headline))) return shortened(headline, limit);
  add(headline);
  for (const text of [`\n${markdownCell(report.releases)}\n`, report.identical ? '' : summaryTable(report.summary), datesList(report)]) {
    if (!fits(sizeOf(text))) return parts.join('');
    add(text);
  }
  if (report.identical) return parts.join('');

  const frames = report.sections.map(frame);
  const rows = report.sections.map((section) => section.rows.map((row) => sizeOf(`| ${row.map(markdownCell).join(' | ')} |\n`)));
  const whole = total([...frames.map((sectionFrame, i) => sectionFrame.size(rows[i]!.length)), ...rows.flat()]);
  // Everything fits: no cut, no note.
  const shown = fits(whole) ? report.sections.map((section) => section.rows.length) : fairShare(report.sections, frames, rows);
  frames.forEach((sectionFrame, i) => add(sectionFrame.render(shown[i]!)));
  const left = report.sections.map((section, i) => ({ section, left: section.rows.length - shown[i]! })).filter((s) => s.left > 0);
  if (left.length > 0) add(cutNote(left, budget));
  return parts.join('');

  /**
   * How many rows of each section fit after what is written, with the cut note's worst case kept
   * free: a round at a time, one more row for every section that has one and whose next row fits.
   */
  function fairShare(sections: DiffSection[], sectionFrames: Frame[], sizes: Size[][]): number[] {
    const worst = sizeOf(
      cutNote(
        sections.map((section) => ({ section, left: section.rows.length })),
        budget,
      ),
    );
    const spent = { chars: used.chars + worst.chars, bytes: used.bytes + worst.bytes };
    const counts = sections.map(() => 0);
    for (let grew = true; grew;) {
      grew = false;
      sections.forEach((section, i) => {
        const k = counts[i]!;
        if (k >= section.rows.length) return;
        const framing = { before: sectionFrames[i]!.size(k), after: sectionFrames[i]!.size(k + 1) };
        const chars = spent.chars + framing.after.chars - framing.before.chars + sizes[i]![k]!.chars;
        const bytes = spent.bytes + framing.after.bytes - framing.before.bytes + sizes[i]![k]!.bytes;
        if (chars > limit.chars || bytes > limit.bytes) return;
        Object.assign(spent, { chars, bytes });
        counts[i] = k + 1;
        grew = true;
      });
    }
    return counts;
  }
}

/** A section's text with its first `k` rows, and its size without those rows (its titles, heads and folds). */
interface Frame {
  render(k: number): string;
  size(k: number): Size;
}

/** A section shown with its first rows in a table and, past FOLD_AFTER, the rest folded in `<details>`; nothing when no row is shown. */
function frame(section: DiffSection): Frame {
  const head = `| ${section.headers.map(markdownCell).join(' | ')} |\n| ${section.headers.map(() => '---').join(' | ')} |\n`;
  const title = `\n#### ${markdownCell(section.title)} (${section.rows.length})\n\n${head}`;
  const rest = section.rows.length - FOLD_AFTER;
  // A blank line after <summary> and before </details>: GitHub and GitLab render the table inside as Markdown.
  const foldOpen = `\n<details><summary>${plural(rest, 'more row')}</summary>\n\n${head}`;
  const foldClose = '\n</details>\n';
  const line = (row: string[]) => `| ${row.map(markdownCell).join(' | ')} |\n`;
  return {
    render(k) {
      if (k === 0) return '';
      const open = section.rows.slice(0, Math.min(k, FOLD_AFTER)).map(line).join('');
      const folded = k > FOLD_AFTER ? `${foldOpen}${section.rows.slice(FOLD_AFTER, k).map(line).join('')}${foldClose}` : '';
      return `${title}${open}${folded}`;
    },
    size(k) {
      if (k === 0) return total([]);
      return total((k > FOLD_AFTER ? [title, foldOpen, foldClose] : [title]).map(sizeOf));
    },
  };
}

/** The counts per category as the first table. */
function summaryTable(summary: { headers: string[]; rows: string[][] }): string {
  if (summary.rows.length === 0) return '';
  const line = (cells: string[]) => `| ${cells.map(markdownCell).join(' | ')} |\n`;
  return `\n${line(summary.headers)}| ${summary.headers.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |\n${summary.rows.map(line).join('')}`;
}

/** The moved effective dates, one line per date pair. */
function datesList(report: ReturnType<typeof diffReport>): string {
  if (report.redatings.length === 0) return '';
  const count = report.redatings.reduce((sum, d) => sum + d.count, 0);
  return `\n#### Effective dates (${plural(count, 'product')})\n\n${report.redatings.map((d) => `- ${redatingLine(d)}`).join('\n')}\n`;
}

/** What was left out, section by section, and where the rest is. */
function cutNote(left: { section: DiffSection; left: number }[], budget: MarkdownBudget): string {
  const within = [budget.chars !== undefined ? `${budget.chars} characters` : '', budget.bytes !== undefined ? `${budget.bytes} bytes` : '']
    .filter(Boolean)
    .join(' and ');
  const each = left.map(({ section, left: n }) => `${n} of ${section.rows.length} ${section.noun}`).join('; ');
  return `\n_Not shown here, to stay within ${within}: ${each}. \`tariff diff --json\` gives every row._\n`;
}

/** The headline alone, cut to the budget with an ellipsis: a budget too small for anything else still gets a line. */
function shortened(headline: string, limit: Size): string {
  const characters = [...headline.trimEnd()];
  let text = '';
  for (const character of characters) {
    const next = `${text}${character}`;
    const size = sizeOf(`${next}…\n`);
    if (size.chars > limit.chars || size.bytes > limit.bytes) break;
    text = next;
  }
  const out = `${text}…\n`;
  const size = sizeOf(out);
  return size.chars <= limit.chars && size.bytes <= limit.bytes ? out : '';
}
