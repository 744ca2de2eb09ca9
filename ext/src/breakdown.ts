/**
 * "Where a call's time goes": the columns and rows of the Overview's breakdown table, and the
 * verdict and payback sentences the card and the Overview show, taken from the digest's summary
 * (digest/summary.py "breakdown", "verdict", "payback").  Pure: the digest derives every figure and
 * sentence, this module only picks them out.  The table's rows come from the REST API, which this
 * release's server derives from the stored run, so the generated types hold and they are not checked; the
 * verdict and payback sentences are the card's too, read from a notebook's saved output, and are checked
 * (verdictText, paybackText).  Runs older than the breakdown lack these keys and yield no rows and no text.
 */

import { IBreakdownColumnSummary, IBreakdownRow, IRunSummary } from './types';
import { isRecord } from './json';

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

export interface IBreakdownTableRow {
  variant: string;
  method: string;
  /**
   * column key -> the cell as the digest words it (BreakdownRow.texts, which words every column a table may
   * show: "1.2 ms"; in a withheld row "40% of pass" or "—")
   */
  parts: Record<string, string>;
  /** why the row's parts are shares (its profiler pass is withheld); "" when they are times */
  withheld: string;
}

/** The table's columns as the digest lists them (collectives after copies when a call spent time in them). */
export function breakdownColumns(summary: Partial<IRunSummary> | null | undefined): IBreakdownColumn[] {
  return (summary?.breakdown_columns ?? [])
    .filter((c: IBreakdownColumnSummary) => c.key in PART_FIELDS)
    .map(c => ({ key: c.key, label: c.label, field: PART_FIELDS[c.key] }));
}

/** One row per measured variant, in the digest's order; none for older runs. */
export function breakdownRows(summary: Partial<IRunSummary> | null | undefined): IBreakdownTableRow[] {
  const columns = breakdownColumns(summary);
  return (summary?.breakdown ?? []).map(row => {
    const parts: Record<string, string> = {};
    for (const column of columns) {
      parts[column.key] = row.texts?.[column.key] ?? '—';
    }
    return {
      variant: row.variant,
      method: row.method,
      parts,
      withheld: row.trusted === false ? (row.withheld_text ?? '') : ''
    };
  });
}

// The card reads these two from the summary a notebook saved, which an older release or anyone who edited the
// notebook may have written otherwise: each is checked to be a sentence before it is shown.
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
