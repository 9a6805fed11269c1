import { TOLERANCES } from './reader-tolerances.ts';
import type { TextRun } from './text-runs.ts';

/** Runs that share a baseline, left to right. `y` is the line's top-most baseline. */
export interface Line {
  y: number;
  height: number;
  runs: TextRun[];
}

/**
 * Groups a page's runs into lines by their baselines, top of the page first. Runs of one row can
 * sit a fraction of a point apart (a spreadsheet aligns each cell on its own), so a run joins a
 * line when its baseline is within `TOLERANCES.sameLine` of the line's.
 */
export function layoutLines(runs: TextRun[]): Line[] {
  const sorted = [...runs].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: Line[] = [];
  for (const run of sorted) {
    const line = lines.at(-1);
    const tolerance = TOLERANCES.sameLine * Math.max(run.height, line?.height ?? 0, 1);
    if (line && Math.abs(line.y - run.y) <= tolerance) {
      line.runs.push(run);
      line.height = Math.max(line.height, run.height);
    } else {
      lines.push({ y: run.y, height: run.height, runs: [run] });
    }
  }
  for (const line of lines) line.runs.sort((a, b) => a.x - b.x);
  return lines;
}

/** The text of runs in reading order: a space where a gap shows one, whitespace folded. */
export function joinRuns(runs: TextRun[]): string {
  if (runs.length === 1) return runs[0]!.text.replace(/\s+/g, ' ').trim();
  let text = '';
  let end = -Infinity;
  // A line's runs are in order already (layoutLines sorts them); sort only what is not.
  const ordered = runs.every((run, i) => i === 0 || runs[i - 1]!.x <= run.x) ? runs : [...runs].sort((a, b) => a.x - b.x);
  for (const run of ordered) {
    const gap = run.x - end;
    text += text !== '' && gap > TOLERANCES.wordGap * Math.max(run.height, 1) ? ` ${run.text}` : run.text;
    end = run.x + run.width;
  }
  return text.replace(/\s+/g, ' ').trim();
}
