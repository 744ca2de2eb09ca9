/** Per cell line: which kernels it produced and how much measured device time they account for. */

import { IKernel, IProfileRun } from './types';

export interface ILineRow {
  line: number;
  code: string;
  kernels: string[];
  /** Summed device time of the kernels tied to this line; null when none was measured. */
  timeMs: number | null;
  graphBreaks: number;
}

/**
 * A kernel fused from ops of several lines counts towards each of them, so per-line times can
 * add up to more than the total; the panel says so.  Lines of the `%%compile_profile` header are
 * numbered like the cell (line 1 is the magic line), matching GraphBreak.line.
 */
export function aggregateByLine(run: Pick<IProfileRun, 'cell_source' | 'kernels' | 'graph_breaks'>): ILineRow[] {
  const cellLines = run.cell_source.split('\n');
  const rows = new Map<number, ILineRow>();
  const rowFor = (line: number): ILineRow => {
    let row = rows.get(line);
    if (!row) {
      row = { line, code: cellLines[line - 1] ?? '', kernels: [], timeMs: null, graphBreaks: 0 };
      rows.set(line, row);
    }
    return row;
  };
  for (const kernel of run.kernels) {
    for (const line of new Set(kernel.lines ?? [])) {
      const row = rowFor(line);
      row.kernels.push(kernel.name);
      if (kernel.device_time_ms !== null && kernel.device_time_ms !== undefined) {
        row.timeMs = (row.timeMs ?? 0) + kernel.device_time_ms;
      }
    }
  }
  for (const brk of run.graph_breaks) {
    if (brk.line !== null && brk.line !== undefined) {
      rowFor(brk.line).graphBreaks += 1;
    }
  }
  return [...rows.values()].sort((a, b) => a.line - b.line);
}

/** Kernels tied to no cell line (library code, or ops whose origin Inductor did not record). */
export function unattributedKernels(kernels: IKernel[]): IKernel[] {
  return kernels.filter(k => !k.lines || k.lines.length === 0);
}
