/**
 * The JSON shapes the panel reads: a ProfileRun dict (kernel_side/compile_profile/profile_run.py),
 * the summary row (render/summary.py) and the MIME bundle data (render/mime.py).
 * Field names are the Python ones; only what the frontend reads is typed.
 */

export const RUN_MIME_TYPE = 'application/vnd.compile-profile.run+json';
export const PLOTLY_MIME_TYPE = 'application/vnd.plotly.v1+json';

export interface ITiming {
  median_ms: number;
  p10_ms: number;
  p90_ms: number;
  n: number;
  mean_ms?: number;
  min_ms?: number;
  samples_ms?: number[];
  method?: string;
}

export interface IVariant {
  name: string;
  backend?: string | null;
  mode?: string | null;
  dynamic?: boolean | null;
  fullgraph?: boolean;
  timing?: ITiming | null;
  first_call_s?: number | null;
  peak_memory_bytes?: number | null;
  compile_s?: number | null;
  recompiled_during_timing?: boolean;
  torch_compile_call?: string | null;
  error?: string | null;
}

export interface ISpeedup {
  value: number;
  low: number | null; // null: too few samples for an interval
  high: number | null;
  variant: string;
  confidence?: number;
}

export interface IGraph {
  id: string;
  kind: string;
  code: string;
  variant?: string;
  compile_id?: string;
  op_counts?: Record<string, number>;
  lines?: number[];
}

export interface IGraphBreak {
  reason: string;
  line: number | null;
  code_line?: string;
  variant?: string;
  compile_id?: string;
  filename?: string;
  file_line?: number | null;
}

export interface IRecompile {
  reason: string;
  variant?: string;
  during_timing?: boolean;
}

export type KernelLanguage = 'triton' | 'cpp' | 'extern';

export interface IKernel {
  /** unique within the run; names repeat across graphs and variants (absent in older runs) */
  id?: string;
  name: string;
  language: KernelLanguage;
  source: string;
  graph_id: string;
  aten_ops?: string[];
  lines?: number[];
  variant?: string;
  device_time_ms?: number | null;
  share?: number | null;
}

export interface ICacheStats {
  fx_graph_hits: number;
  fx_graph_misses: number;
  aot_autograd_hits: number;
  aot_autograd_misses: number;
  state: string;
}

export interface IProfileRun {
  id: string;
  created_at: string;
  label: string;
  cell_source: string;
  device: { type: string; name: string; count?: number };
  torch_version: string;
  variants: IVariant[];
  speedup: ISpeedup | null;
  graphs: IGraph[];
  graph_breaks: IGraphBreak[];
  recompiles: IRecompile[];
  kernels: IKernel[];
  compile_phases: Record<string, number>;
  cache: ICacheStats;
  correctness: { ok: boolean | null; max_abs_diff?: number | null; note?: string } | null;
  errors: { stage: string; message: string; line?: number | null; variant?: string }[];
  status: string;
  notebook: string;
  cell_runs?: number;
  memory_note?: string;
  notes?: string[];
  /** render/summary.py summarize(run), added by the server: the figures and words every view shows */
  summary?: IRunSummary;
}

/** Graph breaks with the same cause at the same place (render/facts.py BreakGroup). */
export interface IBreakGroup {
  line: number | null;
  code_line: string;
  inside: string;
  inside_code: string;
  reason: string;
  reason_full: string;
  count: number;
  variants: string[];
}

export interface IVariantRow {
  name: string;
  median_ms: number | null;
  p10_ms: number | null;
  p90_ms: number | null;
  n: number;
  compile_s: number | null;
  error: string | null;
}

/** One row of the run list: render/summary.py summarize(). */
export interface IRunSummary {
  id: string;
  label: string;
  created_at: string;
  status: string;
  notebook: string;
  device: { type: string; name: string };
  first_line: string;
  headline: string;
  variants: IVariantRow[];
  // low and high are null when there were too few samples for an interval
  speedup: { value: number; low: number | null; high: number | null; variant: string; text: string } | null;
  compile_s: number | null;
  cache_state: string;
  graph_count: number;
  graph_break_count: number;
  recompile_count: number;
  kernel_count: number;
  warnings: string[];
  correctness?: { ok: boolean | null; max_abs_diff: number | null; note: string; method?: string; text?: string } | null;
  graph_breaks?: IBreakGroup[];
}

/** The data of an `application/vnd.compile-profile.run+json` output. */
export interface IRunMimeData {
  version: number;
  run_id: string;
  summary: IRunSummary;
  figures?: Record<string, IPlotlyFigure>;
}

export interface IPlotlyFigure {
  data: Record<string, unknown>[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

export interface IRunsPage {
  runs: IRunSummary[];
  total: number;
  token: number;
}
