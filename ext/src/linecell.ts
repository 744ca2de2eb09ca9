/**
 * What one cell of the Lines tab shows: a variant's time on a cell line (digest/lines.py LineRow),
 * blank where the variant has nothing on that line, exactly where the text view leaves it blank
 * (LineRow.time_text).  Beside the time, a compiled variant's cell counts its kernels and how many
 * it shares with other lines (their time split evenly) and names the ops it ran on the line outside
 * its compiled graphs (a fused optimizer Dynamo skipped); eager's cell names the line's largest ATen
 * ops, which is what the digest lists for eager (eager generates no kernels and splits nothing).
 * Where the variant's profiler pass is withheld the digest words the cell as a share ("31% of pass"):
 * its words (LineRow texts) are shown as they are.
 * Pure: the digest gives every figure and words every time, this module words the count.
 */

import { ILineRow } from './types';

/** The variant whose per-line time the profiler measured op by op (digest/lines.py). */
export const EAGER = 'eager';

export interface ILineCell {
  /** the time as the digest words it (Python's format_ms; "—" when not measured, "31% of pass" when withheld) */
  time: string;
  /** what the time came from: "2 kernels, 1 shared", or eager's ops "aten::mm, aten::relu" */
  note: string;
  /** the kernels or ops, one a line, for a tooltip */
  title: string;
}

/** The cell of `variant` on `row`, or null for a blank cell. */
export function lineCell(variant: string, row: ILineRow): ILineCell | null {
  const has = (m: Record<string, unknown> | undefined) =>
    !!m && Object.prototype.hasOwnProperty.call(m, variant);
  if (!has(row.kernels) && !has(row.eager_ops)) {
    return null;
  }
  const names = row.kernels[variant] ?? [];
  const worded = row.texts?.[variant];
  const time = typeof worded === 'string' ? worded : '—';
  if (variant === EAGER) {
    return { time, note: names.join(', '), title: names.join('\n') };
  }
  const ops = row.eager_ops?.[variant] ?? [];
  const shared = row.shared[variant] ?? 0;
  const parts = [];
  if (names.length) {
    parts.push(`${names.length} kernel${names.length === 1 ? '' : 's'}${shared ? `, ${shared} shared` : ''}`);
  }
  if (ops.length) {
    parts.push(`outside compiled graphs: ${ops.join(', ')}`);
  }
  return { time, note: parts.join('; '), title: [...names, ...ops].join('\n') };
}
