/**
 * The JSON shapes the panel reads: a ProfileRun dict (kernel_side/compile_profile/profile_run.py),
 * the digest (kernel_side/compile_profile/digest/: summary.py, lines.py, compare.py) and the MIME
 * bundle data (render/mime.py).  Field names are the Python ones; only what the frontend reads is
 * typed.  Every figure and sentence comes from the digest: the frontend formats and lays them out.
 * Fields newer than the oldest stored runs and saved notebooks are optional (the call breakdown,
 * verdict and payback of issue 13; its guards, recompiles' failed guards and what was measured:
 * device peaks, memory ratio, autotune choices, CUDA-graph skips and roofline): an older run lacks
 * them and shows nothing in their place.
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
  /** the Inductor options the variant compiled with (--options KEY=VALUE) */
  options?: Record<string, unknown>;
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
  /** roofline (engine/roofline.py): achieved bandwidth and its share of the measured peak; null when not known */
  achieved_gbps?: number | null;
  bandwidth_share?: number | null;
  /** achieved compute and its share of the measured low-precision matmul peak; null when not known */
  achieved_tflops?: number | null;
  compute_share?: number | null;
}

export interface ICacheStats {
  fx_graph_hits: number;
  fx_graph_misses: number;
  aot_autograd_hits: number;
  aot_autograd_misses: number;
  kernels?: number;
  kernels_built?: number | null;
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
  errors: { stage: string; message: string; line?: number | null; variant?: string; call?: number | null }[];
  status: string;
  notebook: string;
  cell_runs?: number;
  memory_note?: string;
  notes?: string[];
  /** the names the cell keeps, and those it assigns but does not (--keep) */
  kept_names?: string[];
  temporaries?: string[];
  /** digest/summary.py run_digest(run), added by the server: the figures and words every view shows */
  summary?: IRunDigest;
}

/** Graph breaks with the same cause at the same place (digest/facts.py BreakGroup). */
export interface IBreakGroup {
  line: number | null;
  code_line: string;
  inside: string;
  inside_code: string;
  reason: string;
  reason_full: string;
  count: number;
  variants: string[];
  /** in DDP's own forward wrapper, which runs eagerly by design: not the user's to fix (digest 8) */
  ddp_wrapper?: boolean;
  /** what to do about the group, or why there is nothing to do (digest 15) */
  note?: string;
  /** whose break it is: "yours", "library" or "pytorch" (PyTorch's own, by design) (digest 15) */
  owner?: string;
  /** Dynamo could not resume there and ran the rest of that function eagerly (digest 15) */
  skipped_rest?: boolean;
  /** Dynamo's page for this kind of graph break, where its reason names one (digest 15) */
  page?: string;
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

/** The speedup as the digest words it (digest/summary.py summarize()["speedup"]). */
export interface ISpeedupSummary {
  value: number;
  // low and high are null when there were too few samples for an interval
  low: number | null;
  high: number | null;
  variant: string;
  /** the factor, "0.56×" */
  text: string;
  /** "1.25× faster" or "1.80× slower": a slowdown by its factor above 1 */
  phrase: string;
  has_interval: boolean;
  includes_one: boolean;
  /** `[0.50, 0.62] 95% CI`, as the text view words it (absent in runs before digest 6) */
  interval_text?: string;
}

/** Where one call's time goes in one variant (digest summary "breakdown"); times in ms. */
export interface IBreakdownRow {
  variant: string;
  /** how the kernel time was measured: CUPTI on the device, or host timestamps */
  method: 'cupti' | 'host' | string;
  /** the whole call */
  median_ms: number;
  /** library kernels (cuBLAS, cuDNN, oneDNN: Inductor's extern calls) */
  library_ms: number;
  /** kernels Inductor generated (Triton, C++) */
  generated_ms: number;
  /** ATen's own kernels */
  aten_ms: number;
  /** memory copies and fills */
  copy_ms: number;
  /** all kernels together */
  kernels_ms: number;
  /** outside kernels: Python, guards, launches (the call less its kernels, 0 when those ran longer) */
  outside_ms: number;
  /** the profiled kernels took longer than the timed call, so outside_ms reads 0 (a warning says so) */
  clamped?: boolean;
  /** the process group's communication (all-reduce...); 0 outside distributed runs */
  collective_ms?: number;
  /** false: the profiler pass is withheld (digest/kernel_times.py), the parts are shares of it (digest 13) */
  trusted?: boolean;
  /** why the pass is withheld, said under the table; "" when it is not (digest 13) */
  withheld_text?: string;
  /** part key -> the cell as the digest words it: "1.2 ms", in a withheld row "40% of pass" or "—" (digest 13) */
  texts?: Record<string, string>;
}

/** One variant's profiler pass held against its timed call (digest/kernel_times.py PassJudgment). */
export interface IPassJudgment {
  variant: string;
  /** false: the pass's kernel and line times are withheld; the views show shares */
  trusted: boolean;
  kernels_ms: number;
  call_ms: number;
  tolerance_ms: number;
  /** every profiled call was preempted (a busy CPU) */
  preempted: boolean;
  /** why the times are withheld, said where they would be; "" when trusted */
  text: string;
}

/** A column of the breakdown table (digest summary "breakdown_columns"), keyed as BreakdownRow.parts. */
export interface IBreakdownColumnSummary {
  key: string;
  label: string;
}

/** What compiling cost and when it pays back (digest summary "payback"). */
export interface IPayback {
  compile_s: number;
  saving_ms: number;
  /** calls until the saving repays the compile; null when it never does */
  calls: number | null;
  /**
   * the digest's sentence:
   * "compiling cost 71 s (cold cache) and saves 29 ms a call: it pays back after ~2,450 calls"
   */
  text: string;
}

/** One row of the run list and the card's data: digest/summary.py summarize(). */
export interface IRunSummary {
  id: string;
  label: string;
  created_at: string;
  status: string;
  /** what lists show for the run: its status, or "results differ" beside it (digest 11) */
  list_status?: string;
  notebook: string;
  device: { type: string; name: string };
  first_line: string;
  headline: string;
  variants: IVariantRow[];
  speedup: ISpeedupSummary | null;
  compile_s: number | null;
  cache_state: string;
  cache_words?: string;
  cache_counts?: string[];
  graph_count: number;
  graph_break_count: number;
  /** "7 graph breaks, 3 in DDP's wrapper" (digest 8) */
  graph_break_text?: string;
  /** what an empty list of graph breaks means for this run (digest 15) */
  graph_break_empty_text?: string;
  /** how many of the graph breaks are in DDP's own wrapper (digest 8) */
  ddp_wrapper_break_count?: number;
  recompile_count: number;
  kernel_count: number;
  warnings: string[];
  correctness?: {
    ok: boolean | null;
    max_abs_diff: number | null;
    note: string;
    method?: string;
    text?: string;
  } | null;
  graph_breaks?: IBreakGroup[];
  /** where a call's time goes, per variant; [] when not measured, absent in older runs */
  breakdown?: IBreakdownRow[];
  /** the breakdown's columns in order: collectives after copies where a call spent time in them (digest 8) */
  breakdown_columns?: IBreakdownColumnSummary[];
  /** one sentence why compiled is faster or slower; null or absent when there is none */
  verdict?: string | null;
  /** each variant's profiler pass held against its timed call, by variant (digest 13) */
  kernel_times?: Record<string, IPassJudgment>;
  payback?: IPayback | null;
  /** the run's place in a distributed job (issue 14); null for a single-process run, absent in older runs */
  distributed?: IDistributedSummary | null;
  /** why the stored run cannot be read (digest 12: digest/summary.py unreadable_summary); null when it can */
  unreadable?: string | null;
}

/** A run's place in a distributed job (digest/summary.py summarize()["distributed"]). */
export interface IDistributedSummary {
  rank: number;
  world_size: number;
  /** shared by every rank of one profile call */
  job_id: string;
  /** the process group's backend: "gloo", "nccl", ... */
  backend: string;
  /** "rank 1 of 2 (gloo), job 3f2a9c01d4e5" (digest/distributed.py distributed_text) */
  text?: string;
}

/** One cell line's kernels and time per variant (digest/lines.py LineRow). */
export interface ILineRow {
  line: number;
  code: string;
  /** variant -> kernel names, in generation order */
  kernels: Record<string, string[]>;
  /** variant -> this line's share of kernel time (null: none of its kernels was timed) */
  time_ms: Record<string, number | null>;
  /** variant -> how many of this line's kernels are shared with other lines (their time split evenly) */
  shared: Record<string, number>;
  /** compiled variant -> the ops it ran on this line outside its compiled graphs, most time first */
  eager_ops?: Record<string, string[]>;
  graph_breaks: number;
  /** variant -> this line's share of the variant's line time, where its pass is withheld (digest 13) */
  share?: Record<string, number | null>;
  /** variant -> the cell as the digest words it: "1.2 ms", "31% of pass", "—" (digest 13) */
  texts?: Record<string, string>;
}

/** Time per cell line (digest/lines.py LineTimes.as_dict()). */
export interface ILineTimes {
  /** the one rule the times follow, in words */
  rule: string;
  /**
   * variants with kernels: "eager" first when eager's time per line was measured, then the
   * speedup's ("" when kernels carry no variant)
   */
  variants: string[];
  rows: ILineRow[];
  /** variant -> kernels tied to no cell line */
  unattributed: Record<string, number>;
  unattributed_ms: Record<string, number | null>;
  /** variant -> its measured kernel time that no line holds (those kernels and ops run while no line ran) */
  off_lines_ms?: Record<string, number>;
  /** what no line holds, one worded entry per variant: "inductor/default 8.15 µs of 444 µs (1.8 %; 1 kernel)" */
  off_lines_text?: string[];
  /** variant -> why its line times are shares (its profiler pass is withheld; digest 13) */
  withheld?: Record<string, string>;
}

/** The guards on one value of one kind (digest/guards.py GuardGroup). */
export interface IGuardGroup {
  kind: string;
  /** the value checked, as Dynamo names it: "G['x']", "L['self'].weight" */
  source: string;
  /** the cell line the value comes from; null when none */
  line: number | null;
  count: number;
  /** the checks themselves, as Dynamo prints them */
  codes: string[];
}

/** One Dynamo graph's guards (digest/guards.py GraphGuards, with kinds_text). */
export interface IGraphGuards {
  graph_id: string;
  variant: string;
  compile_id: string;
  total: number;
  /** kind -> count, in the digest's order */
  by_kind: Record<string, number>;
  /** "12 tensor, 3 shape, 4 global state" */
  kinds_text: string;
  groups: IGuardGroup[];
}

/** A recompile as the digest words it: which guard failed on which value at which cell line. */
export interface IRecompileRow {
  variant: string;
  reason: string;
  during_timing: boolean;
  source: string;
  line: number | null;
  /** "the guard on G['x'] (cell line 1) failed"; "" when unknown */
  failed_guard: string;
}

/** One max-autotune choice: the op, its shape, what won and how long tuning took (digest "measured"). */
export interface IAutotuneRow {
  variant: string;
  op: string;
  shape: string;
  choices: number;
  best: string;
  best_ms: number | null;
  best_triton: string | null;
  best_triton_ms: number | null;
  autotune_s: number | null;
  /** the digest's sentence for this choice */
  text: string;
}

/** Why CUDA graphs were skipped in one variant. */
export interface ICudagraphSkip {
  variant: string;
  reasons: string[];
}

/** One kernel against the roofline: achieved bandwidth and compute, their shares of the peaks. */
export interface IRooflineRow {
  kernel_id: string;
  name: string;
  variant: string;
  achieved_gbps: number | null;
  bandwidth_share: number | null;
  achieved_tflops: number | null;
  compute_share: number | null;
  /** the digest's sentence for this kernel */
  text: string;
}

/** What was measured beside the timing (issue 13 §4): the digest's figures and sentences. */
export interface IMeasured {
  device_peaks: { text: string; method: string } | null;
  memory_ratio: { value: number; text: string } | null;
  autotune: IAutotuneRow[];
  cudagraph_skips: ICudagraphSkip[];
  roofline: IRooflineRow[];
}

/** One run's digest as the server sends it with the run: digest/summary.py run_digest(). */
export interface IRunDigest extends IRunSummary {
  lines?: ILineTimes;
  /** per Dynamo graph with guards; absent in older runs */
  guards?: IGraphGuards[];
  /** each recompile with its failed guard; absent in older runs */
  recompiles?: IRecompileRow[];
  measured?: IMeasured;
}

/** A run as the comparison names it (digest/compare.py RunRef). */
export interface IRunRef {
  id: string;
  label: string;
  created_at: string;
  device: string;
  torch_version: string;
}

/** One compared figure (digest/compare.py Delta). */
export interface IDelta {
  metric: string;
  a: number | null;
  b: number | null;
  a_text: string;
  b_text: string;
  /** b / a - 1; null when undefined */
  change: number | null;
  change_text: string;
  /** which run's figure is the better one; "" when neither or the figure has no direction */
  better: 'a' | 'b' | '';
}

/** A kernel name (Inductor's trailing counter stripped) and how many more one run has. */
export interface IKernelCount {
  name: string;
  count: number;
}

/** Run A (before) against run B (after): digest/compare.py Comparison.as_dict(). */
export interface IComparison {
  a: IRunRef;
  b: IRunRef;
  deltas: IDelta[];
  kernels_added: IKernelCount[];
  kernels_removed: IKernelCount[];
  kernels_kept: number;
}

/** The data of an `application/vnd.compile-profile.run+json` output. */
export interface IRunMimeData {
  version: number;
  run_id: string;
  summary: IRunSummary;
  figures?: Record<string, IPlotlyFigure>;
  /** what the profile wrote to stderr after the first eager run (magic.py), shown folded, and its heading */
  logs?: string[];
  logs_text?: string;
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

/** One rank of a job (digest/job.py JobDigest rows): every figure with the digest's words for it. */
export interface IJobRow {
  rank: number;
  run_id: string;
  host: string;
  status: string;
  speedup: number | null;
  speedup_text: string;
  interval_text: string;
  compile_s: number | null;
  compile_text: string;
  graphs: number;
  ddp_buckets: number;
  breaks: number;
  recompiles: number;
  cache_hits: number;
  cache_misses: number;
  peak_memory_bytes: number | null;
  peak_memory_text: string;
  collective_share: number | null;
  collective_text: string;
  /** calls of the step this rank made */
  cell_runs: number;
  /** this rank differs from the others; `reasons` says how */
  divergent: boolean;
  reasons: string[];
}

/** A way one rank differs from the rest of its job. */
export interface IJobDivergence {
  rank: number;
  what: string;
  text: string;
}

/** The compile times of a job's ranks, and the digest's sentence for their spread. */
export interface ICompileSpread {
  min_s: number | null;
  median_s: number | null;
  max_s: number | null;
  text: string;
}

/** One profile call on every rank of a distributed job (digest/job.py job_digest). */
export interface IJobDigest {
  job_id: string;
  world_size: number;
  backend: string;
  torchrun_id: string;
  ranks: number[];
  missing_ranks: number[];
  headline: string;
  compile_spread: ICompileSpread;
  rows: IJobRow[];
  divergences: IJobDivergence[];
}

/** GET jobs/<job_id>: the job's digest and its runs' summaries. */
export interface IJobPage {
  job: IJobDigest;
  runs: IRunSummary[];
}
