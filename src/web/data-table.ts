import { html, type SafeHtml } from './html.ts';

/** A column of a data table: its heading, and how its cells are set (style.css). */
export interface Column {
  label: string;
  /**
   * `amount`: a price or a count, on one line, in figures of one width; `when`: a date, on one
   * line; `actions`: buttons or links, shown on a phone without their column's heading.
   */
  kind?: 'amount' | 'when' | 'actions';
}

/** One row: its cells in the columns' order, and attributes of the row (`data-…` the tests and scripts read). */
export interface Row {
  cells: (SafeHtml | string | number)[];
  attributes?: SafeHtml;
}

/**
 * A table of records that stays readable on a phone: on a wide screen, a table; below 40rem,
 * one block per row (style.css `table.stack`), the first cell as its title and every other cell
 * after the heading of its column, which each cell carries (`data-label`). With `rowHeader`, the
 * first cell of a row is its header (`<th scope="row">`).
 */
export function dataTable(options: {
  columns: (Column | string)[];
  rows: Row[];
  rowHeader?: boolean;
  caption?: SafeHtml | string;
  id?: string;
  className?: string;
}): SafeHtml {
  const columns = options.columns.map((column) => (typeof column === 'string' ? { label: column } : column));
  const cell = (value: Row['cells'][number], i: number) => {
    const { label, kind } = columns[i]!;
    const attributes = html`${label ? html` data-label="${label}"` : ''}${kind ? html` class="${kind}"` : ''}`;
    return options.rowHeader && i === 0 ? html`<th scope="row"${attributes}>${value}</th>` : html`<td${attributes}>${value}</td>`;
  };
  return html`<table class="stack${options.className ? ` ${options.className}` : ''}"${options.id ? html` id="${options.id}"` : ''}>${
    options.caption ? html`<caption>${options.caption}</caption>` : ''
  }<thead><tr>${columns.map((column) => html`<th scope="col">${column.label}</th>`)}</tr></thead><tbody>${options.rows.map(
    (row) => html`<tr${row.attributes ?? ''}>${row.cells.map(cell)}</tr>`,
  )}</tbody></table>`;
}
