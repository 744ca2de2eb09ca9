/**
 * "Where a call's time goes": the columns and rows of the Overview's breakdown table, and the
 * verdict and payback sentences the card and the Overview show, taken from the digest's summary
 * (digest/summary.py "breakdown", "verdict", "payback").  Pure: the digest derives every figure and
 * sentence, this module only picks them out and formats the times with formatMs (format.ts mirrors
 * Python's format_ms).  Runs older than the breakdown lack these keys and yield no rows and no text.
 */

import { formatMs } from './format';
import { IBreakdownRow, IRunSummary } from './types';

/** A column of the table: its key (also the cell's data-part), its heading and the row's field. */
export interface IBreakdownColumn {
  key: 'library' | 'generated' | 'aten' | 'copies' | 'outside' | 'call';
  label: string;
  field: keyof IBreakdownRow;
}

/** The parts of a call in the order they add up, then the whole call. */
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
  /** column key -> the time as Python's format_ms words it ("—" for a missing figure) */
  parts: Record<IBreakdownColumn['key'], string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** One row per measured variant, in the digest's order; none for older runs or a malformed key. */
export function breakdownRows(summary: Partial<IRunSummary> | null | undefined): IBreakdownTableRow[] {
  const rows: unknown = summary?.breakdown;
  if (!Array.isArray(rows)) {
    return [];
  }
  return rows.filter(isRecord).map(row => {
    const parts = {} as IBreakdownTableRow['parts'];
    for (const column of BREAKDOWN_COLUMNS) {
      parts[column.key] = formatMs(asNumber(row[column.field]));
    }
    return {
      variant: typeof row.variant === 'string' ? row.variant : '',
      method: typeof row.method === 'string' ? row.method : '',
      parts
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
