import { errors } from '../../errors.ts';
import { READER_LIMITS } from './reader-tolerances.ts';

/** A problem of a document, where it is (page and row when known) and what it is. */
export interface Problem {
  page: number | null;
  row: number | null;
  /** "codice 21872 "TOSCANO"": what the row is, to find it in the document. */
  what?: string;
  detail: string;
}

const SHOWN = 5;

/**
 * A document's problems: the first `limit` kept with their page and row, the rest only counted, so
 * that a document with a problem on every line costs the command no more than one with a thousand.
 * `length` counts them all (a step that checks whether it added one sees it, kept or not).
 */
export class ProblemLog implements Iterable<Problem> {
  private readonly kept: Problem[] = [];
  private dropped = 0;
  private readonly limit: number;

  constructor(limit: number = READER_LIMITS.problemsPerDocument) {
    this.limit = limit;
  }

  push(...problems: Problem[]): void {
    for (const problem of problems) {
      if (this.kept.length < this.limit) this.kept.push(problem);
      else this.dropped++;
    }
  }

  /** Every problem, kept or only counted. */
  get length(): number {
    return this.kept.length + this.dropped;
  }

  /** Problems counted but not kept. */
  get omitted(): number {
    return this.dropped;
  }

  [Symbol.iterator](): Iterator<Problem> {
    return this.kept[Symbol.iterator]();
  }

  toJSON(): Problem[] {
    return this.kept;
  }
}

/** "pages 1–3, 5" from [1, 2, 3, 5]. */
function pageRanges(pages: number[]): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}–${sorted[j]}` : String(sorted[i]));
    i = j;
  }
  return `${sorted.length > 1 ? 'pages' : 'page'} ${parts.join(', ')}`;
}

/**
 * A document's problems in one line: the same problem on many pages is said once with its pages,
 * the first few others with their page and row; `tariff inspect` lists every one.
 */
export function summariseProblems(problems: ProblemLog | Problem[]): string {
  // Each problem added to its group in place: linear in the problems, however many share a detail.
  const groups = new Map<string, Problem[]>();
  let kept = 0;
  for (const problem of problems) {
    kept++;
    const key = problem.row === null ? problem.detail : `\u0000${groups.size}`;
    const group = groups.get(key);
    if (group) group.push(problem);
    else groups.set(key, [problem]);
  }
  const said = [...groups.values()].map((group) => {
    const first = group[0]!;
    if (first.row === null) return first.page === null ? first.detail : `${first.detail} (${pageRanges(group.map((p) => p.page!))})`;
    return `page ${first.page} row ${first.row}${first.what ? ` (${first.what})` : ''}: ${first.detail}`;
  });
  const more = said.length > SHOWN ? `; and ${said.length - SHOWN} more` : '';
  const uncounted = problems.length > kept ? `; ${problems.length - kept} more past the first ${kept}, not kept` : '';
  return `${problems.length} problem(s): ${said.slice(0, SHOWN).join('; ')}${more}${uncounted}`;
}

/** Throws `source_invalid` naming the document, its problems in one line, when there are any. */
export function throwIfProblems(source: string, problems: ProblemLog): void {
  if (problems.length === 0) return;
  throw errors.sourceInvalid(source, `${summariseProblems(problems)} (tariff inspect ${source} shows every row)`);
}
