/**
 * "Show what is measured" (issue 13 §4): the digest's device peaks and memory ratio sentences (the
 * Overview), max-autotune's choices and the CUDA-graph skip reasons (the Compile tab) and each
 * kernel's roofline sentence (the Kernels tab), all from the summary's `measured` key
 * (digest/summary.py digest_of).  Pure: the digest derives and words every figure and sentence (the
 * autotune table's times too, AutotuneRow texts), this module picks them out.  They come from the REST
 * API, which this release's server derives from the stored run, so the generated types hold and nothing
 * is checked here; runs older than `measured` yield no text and no rows.
 */

import { IMeasured, IPlotlyFigure, IRunDigest } from './types';

function nonEmpty(value: string | null | undefined): string | null {
  return value && value.trim() ? value : null;
}

function measured(summary: Partial<IRunDigest> | null | undefined): Partial<IMeasured> {
  return summary?.measured ?? {};
}

/** The device's peaks in the digest's words and how they were measured; null when not measured. */
export function devicePeaks(
  summary: Partial<IRunDigest> | null | undefined
): { text: string; method: string } | null {
  const peaks = measured(summary).device_peaks;
  return peaks && nonEmpty(peaks.text) ? { text: peaks.text, method: peaks.method } : null;
}

/** The memory ratio (compiled peak memory against eager's) in the digest's words; null when none. */
export function memoryRatioText(summary: Partial<IRunDigest> | null | undefined): string | null {
  return nonEmpty(measured(summary).memory_ratio?.text);
}

/** A column of the autotune table: its key (the cell's data-field) and heading. */
export interface IAutotuneColumn {
  key: 'op' | 'shape' | 'picked' | 'best_ms' | 'best_triton' | 'best_triton_ms' | 'choices' | 'tune';
  label: string;
}

export const AUTOTUNE_COLUMNS: readonly IAutotuneColumn[] = [
  { key: 'op', label: 'op' },
  { key: 'shape', label: 'shape' },
  { key: 'picked', label: 'picked' },
  { key: 'best_ms', label: 'time' },
  { key: 'best_triton', label: 'best Triton' },
  { key: 'best_triton_ms', label: 'Triton time' },
  { key: 'choices', label: 'choices' },
  { key: 'tune', label: 'tuning' }
];

export interface IAutotuneTableRow {
  variant: string;
  /** the digest's sentence for this choice */
  text: string;
  /** column key -> the cell's text ("—" for a missing figure) */
  cells: Record<IAutotuneColumn['key'], string>;
}

/** One row per autotuned op, in the digest's order; none for older runs. */
export function autotuneRows(summary: Partial<IRunDigest> | null | undefined): IAutotuneTableRow[] {
  return (measured(summary).autotune ?? []).map(r => ({
    variant: r.variant,
    text: r.text,
    cells: {
      op: nonEmpty(r.op) ?? '—',
      shape: nonEmpty(r.shape) ?? '—',
      picked: nonEmpty(r.best) ?? '—',
      best_ms: nonEmpty(r.texts.best_ms) ?? '—',
      best_triton: nonEmpty(r.best_triton) ?? '—',
      best_triton_ms: nonEmpty(r.texts.best_triton_ms) ?? '—',
      choices: r.choices === null ? '—' : String(r.choices),
      tune: nonEmpty(r.texts.autotune_s) ?? '—'
    }
  }));
}

/** Why CUDA graphs were skipped, per variant with a reason; none for older runs. */
export function cudagraphSkips(
  summary: Partial<IRunDigest> | null | undefined
): { variant: string; reasons: string[] }[] {
  return (measured(summary).cudagraph_skips ?? [])
    .map(s => ({ variant: s.variant, reasons: s.reasons.filter(r => nonEmpty(r) !== null) }))
    .filter(s => s.reasons.length > 0);
}

/** Each kernel's name and roofline sentence (which names no kernel), in the digest's order; none for older runs. */
export function rooflineTexts(
  summary: Partial<IRunDigest> | null | undefined
): { kernelId: string; name: string; variant: string; text: string }[] {
  return (measured(summary).roofline ?? [])
    .filter(r => nonEmpty(r.text) !== null)
    .map(r => ({ kernelId: r.kernel_id, name: r.name, variant: r.variant, text: r.text }));
}

/** The roofline chart's height: the figure's own (a bar per kernel), else `fallback`. */
export function figureHeight(figure: IPlotlyFigure | undefined, fallback: number): number {
  const height: unknown = figure?.layout?.height;
  return typeof height === 'number' && Number.isFinite(height) && height > 0 ? height : fallback;
}
