/**
 * "Where a call's time goes": the columns and rows of the Overview's breakdown table, and the
 * verdict and payback sentences the card and the Overview show, taken from the digest's summary
 * (digest/summary.py "breakdown", "verdict", "payback").  Pure: the digest derives every figure and
 * sentence, this module only picks them out and formats the times with formatMs (format.ts mirrors
 * Python's format_ms).  Runs older than the breakdown lack these keys and yield no rows and no text.
 */

import { formatMs } from './format';
import { IBreakdownRow, IRunSummary } from './types';
import { asNumber, isRecord } from './json';

/** A column of the table: its key (also the cell's data-part), its heading and the row's field. */
export interface IBreakdownColumn {
  /** library, generated, aten, copies, collectives (a distributed run), outside, call */
  key: string;
  label: string;
  field: keyof IBreakdownRow;
}

/**
 * The row's field of each part the digest names (digest/breakdown.py BreakdownRow.parts); a column
 * whose key is not here has no figure to show and is left out.
 */
const PART_FIELDS: Readonly<Record<string, keyof IBreakdownRow>> = {
  library: 'library_ms',
  generated: 'generated_ms',
  aten: 'aten_ms',
  copies: 'copy_ms',
  collectives: 'collective_ms',
  outside: 'outside_ms',
  call: 'median_ms'
};

/**
 * The parts of a call in the order they add up, then the whole call: the columns of a digest that
 * does not list its own (before digest 8), which had no collectives.
 */
export const BREAKDOWN_COLUMNS: readonly IBreakdownColumn[] = [
  { key: 'library', label: 'library', field: 'library_ms' },
  { key: 'generated', label: 'generated', field: 'generated_ms' },
  { key: 'aten', label: 'ATen', field: 'aten_ms' },
  { key: 'copies', label: 'copies', field: 'copy_ms' },
  { key: 'outside', label: 'outside kernels', field: 'outside_ms' },
  { key: 'call', label: 'call', field: 'median_ms' }
];

export interface IBreakdownTableRow {
  variant: string;
  method: string;
  /**
   * column key -> the cell as the digest words it (BreakdownRow.part_text: "1.2 ms"; in a withheld row
   * "40% of pass" or "—"), or, before digest 11, the time as Python's format_ms words it
   */
  parts: Record<string, string>;
  /** why the row's parts are shares (its profiler pass is withheld); "" when they are times */
  withheld: string;
}

/**
 * The table's columns as the digest lists them ("breakdown_columns": collectives after copies when a
 * call spent time in them); BREAKDOWN_COLUMNS for a digest that lists none.
 */
export function breakdownColumns(summary: Partial<IRunSummary> | null | undefined): IBreakdownColumn[] {
  const listed: unknown = summary?.breakdown_columns;
  if (!Array.isArray(listed)) {
    return [...BREAKDOWN_COLUMNS];
  }
  return listed
    .filter(isRecord)
    .filter(c => typeof c.key === 'string' && typeof c.label === 'string' && c.key in PART_FIELDS)
    .map(c => ({ key: c.key as string, label: c.label as string, field: PART_FIELDS[c.key as string] }));
}

/** One row per measured variant, in the digest's order; none for older runs or a malformed key. */
export function breakdownRows(summary: Partial<IRunSummary> | null | undefined): IBreakdownTableRow[] {
  const rows: unknown = summary?.breakdown;
  if (!Array.isArray(rows)) {
    return [];
  }
  const columns = breakdownColumns(summary);
  return rows.filter(isRecord).map(row => {
    const texts = isRecord(row.texts) ? row.texts : {};
    const parts: Record<string, string> = {};
    for (const column of columns) {
      const text = texts[column.key];
      parts[column.key] = typeof text === 'string' ? text : formatMs(asNumber(row[column.field]));
    }
    return {
      variant: typeof row.variant === 'string' ? row.variant : '',
      method: typeof row.method === 'string' ? row.method : '',
      parts,
      withheld: row.trusted === false && typeof row.withheld_text === 'string' ? row.withheld_text : ''
    };
  });
}

function nonEmpty(text: unknown): string | null {
  return typeof text === 'string' && text.trim() ? text : null;
}

/** Why compiled is faster or slower, in the digest's words; null when the run has none. */
export function verdictText(summary: Partial<IRunSummary> | null | undefined): string | null {
  return nonEmpty(summary?.verdict);
}

/** What compiling cost and when it pays back, in the digest's words; null when the run has none. */
export function paybackText(summary: Partial<IRunSummary> | null | undefined): string | null {
  const payback: unknown = summary?.payback;
  return isRecord(payback) ? nonEmpty(payback.text) : null;
}
