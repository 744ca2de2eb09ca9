/* Generated from kernel_side/compile_profile/schema/digest.schema.json by ext/scripts/contract-types.mjs (make contract): do not edit. */

export type DigestJson =
  | RunDigest
  | RunSummary
  | RunMimeData
  | RunsPage
  | Comparison
  | JobDigest
  | JobPage
  | CompileIndex
  | CompileDetail;

/**
 * ``summarize`` plus what one run's detail shows (``run_digest``).
 */
export interface RunDigest extends RunSummary {
  lines?: LineTimes;
  /**
   * per Dynamo graph with guards
   */
  guards?: GraphGuards[];
  recompiles?: RecompileRow[];
  measured?: Measured;
  /**
   * None for a run stored before stages were timed
   */
  profile_cost?: ProfileCost | null;
  /**
   * None for a run stored before spans
   */
  compile_timeline?: CompileTimeline | null;
  /**
   * why a later run of the cell failed; "" where none did
   */
  later_run_failure?: string;
  /**
   * what an interrupted run holds; "" for any other
   */
  interrupted_text?: string;
  /**
   * whether the timings can be read (digest.noise)
   */
  timing_warnings?: string[];
  /**
   * the in-place state the runs left advanced
   */
  state_warnings?: string[];
  /**
   * each graph's collectives, then the collective kernels
   */
  collectives?: string[];
  /**
   * the recompiles, a run of one guard together
   */
  recompile_runs?: RecompileRun[];
  /**
   * how many recompiles came during timed runs
   */
  recompiles_timed?: number;
  /**
   * what the breakdown's figures are, said under it
   */
  breakdown_note?: string;
  kernel_table?: KernelTable;
  /**
   * each kernel's cells worded, in the run's order
   */
  kernel_cells?: KernelCells[];
  /**
   * the %%compile_profile line the run's cell was profiled by
   */
  magic_line?: string;
}
/**
 * Time per cell line: every cell line with kernels or graph breaks, and what no line could claim.
 */
export interface LineTimes {
  /**
   * the one rule the times follow, in words
   */
  rule: string;
  /**
   * "eager" when it has line times, then variants with kernels, the speedup's variant first
   */
  variants: string[];
  rows: LineRow[];
  /**
   * variant -> kernels tied to no cell line
   */
  unattributed: {
    [k: string]: number;
  };
  /**
   * variant -> those kernels' time
   */
  unattributed_ms: {
    [k: string]: number | null;
  };
  /**
   * variant -> time off lines
   */
  off_lines_ms?: {
    [k: string]: number;
  };
  /**
   * what no line holds, worded
   */
  off_lines_text?: string[];
  /**
   * variant -> why its times are shares
   */
  withheld?: {
    [k: string]: string;
  };
  chart_note?: string;
}
/**
 * One cell line: its code, the kernels that came from it, and their time per variant, with each cell worded.
 */
export interface LineRow {
  line: number;
  code: string;
  /**
   * variant -> kernel names (eager: its ATen ops)
   */
  kernels: {
    [k: string]: string[];
  };
  /**
   * variant -> its kernel time (None: none timed)
   */
  time_ms: {
    [k: string]: number | null;
  };
  /**
   * variant -> ops run eagerly
   */
  eager_ops?: {
    [k: string]: string[];
  };
  /**
   * variant -> kernels also counted on other lines
   */
  shared: {
    [k: string]: number;
  };
  graph_breaks: number;
  /**
   * variant -> share of pass
   */
  share?: {
    [k: string]: number | null;
  };
  /**
   * variant -> "1.2 ms", "31% of pass"
   */
  texts?: {
    [k: string]: string;
  };
  /**
   * kernels of the compiled variants on this line
   */
  kernel_count?: number;
}
/**
 * One Dynamo graph's guards, and their kinds in words.
 */
export interface GraphGuards {
  graph_id: string;
  variant: string;
  compile_id: string;
  total: number;
  /**
   * kind -> count, in KIND_ORDER
   */
  by_kind: {
    [k: string]: number;
  };
  groups: GuardGroup[];
  /**
   * "12 tensor, 3 shape, 4 global state"
   */
  kinds_text: string;
  /**
   * the graph, its guards and their kinds in words
   */
  heading?: string;
}
/**
 * The guards of one kind on one value or one object's parts (``source``, in the user's words: ``x``, ``m's parameters``), e.g. the tensor match and its shape guards on ``x``.
 */
export interface GuardGroup {
  kind: string;
  /**
   * the value checked, in the user's words: "x", "self.weight", "xb", "m's parameters"
   */
  source: string;
  /**
   * the cell line the value comes from
   */
  line: number | null;
  count: number;
  /**
   * the checks themselves, as Dynamo prints them
   */
  codes: string[];
  /**
   * why the value recompiles and what to do, for a value guard on data; "" for any other group
   */
  warning: string;
  /**
   * the group in words, as the text view lists it
   */
  text?: string;
}
/**
 * A recompile with the guard that failed: which value, at which cell line (``recompiles_digest``).
 */
export interface RecompileRow {
  variant: string;
  reason: string;
  during_timing: boolean;
  source: string;
  line: number | null;
  /**
   * the failed guard in the user's words: the value, what changed, the fix; "" when unknown
   */
  failed_guard: string;
  /**
   * "xb, what next(batches) returned at cell line 3"; "x (cell line 2)"; "" when unknown
   */
  value: string;
  /**
   * "dim 1: 32 → 17", "dtype: Float → Double", "value (compiled for 56.15…)"; "" when unread
   */
  changed: string;
  /**
   * "compile with dynamic=True, or torch._dynamo.mark_dynamic(xb, 1)"; "" when none is known
   */
  fix: string;
}
/**
 * What was measured beside the timing (``measured``): the digest's figures and sentences.
 */
export interface Measured {
  device_peaks: DevicePeaksSummary | null;
  memory_ratio: MemoryRatio | null;
  autotune: AutotuneRow[];
  cudagraph_skips: CudagraphSkip[];
  /**
   * the ROOFLINE_ROWS kernels with rates that took the most time
   */
  roofline: RooflineRow[];
  /**
   * every kernel with rates: the rows and those left out
   */
  roofline_count?: number;
  /**
   * what the roofline figures are, said under them; "" without
   */
  roofline_note?: string;
}
/**
 * The device's measured ceilings in words, and how they were measured.
 */
export interface DevicePeaksSummary {
  text: string;
  method: string;
}
/**
 * Compiled's peak memory over eager's, and the sentence for it.
 */
export interface MemoryRatio {
  value: number;
  text: string;
}
/**
 * One max-autotune choice: the op, its shape, what won and how long tuning took.
 */
export interface AutotuneRow {
  variant: string;
  op: string;
  /**
   * in words: [4096×4096, 4096×4096]
   */
  shape: string;
  choices: number | null;
  best: string;
  best_ms: number | null;
  best_triton: string;
  best_triton_ms: number | null;
  autotune_s: number | null;
  text: string;
  texts: {
    [k: string]: string;
  };
}
/**
 * Why CUDA graphs were skipped in one variant.
 */
export interface CudagraphSkip {
  variant: string;
  reasons: string[];
  /**
   * the skip in words, every reason
   */
  text?: string;
}
/**
 * A timed kernel's achieved rates, as shares of the device's ceilings where there is one.
 */
export interface RooflineRow {
  kernel_id: string;
  name: string;
  variant: string;
  achieved_gbps: number | null;
  /**
   * of the copy peak
   */
  bandwidth_share: number | null;
  achieved_tflops: number | null;
  /**
   * of the bf16 matmul peak
   */
  compute_share: number | null;
  text: string;
}
/**
 * Where the profile's own time went (``profile_cost``).
 */
export interface ProfileCost {
  total_s: number;
  time: string;
  /**
   * one sentence: first calls, timing, after timing and its largest stage
   */
  text: string;
  rows: ProfileCostRow[];
}
/**
 * One stage of the profile's own wall time (``profile_cost``).
 */
export interface ProfileCostRow {
  /**
   * the key of ProfileRun.stage_s ("kernel pass: eager")
   */
  stage: string;
  /**
   * in words ("eager profile (per cell line)")
   */
  label: string;
  seconds: number;
  /**
   * "1.2 s"
   */
  time: string;
  /**
   * of the profile's wall time: "43%"
   */
  share: string;
}
/**
 * Where the compiles' time went, compile by compile (``compile_timeline``).
 */
export interface CompileTimeline {
  /**
   * "first call 12.3 s: 11.9 s of it (97%) compiling 3 frames (0/0 9.1 s, ...)"
   */
  text: string;
  rows: CompileTimelineRow[];
}
/**
 * One compile (a compile id) of a compiled variant, its time and nested phases (``compile_rows``).
 */
export interface CompileTimelineRow {
  variant: string;
  /**
   * "0/0"
   */
  compile_id: string;
  when: 'first call' | 'recompile';
  /**
   * from the variant's first compile's start
   */
  start_s: number;
  /**
   * its outermost spans' sum
   */
  total_s: number;
  time: string;
  /**
   * "FX graph: 2 misses (full_miss); AOTAutograd: 1 miss (full_miss)"; "" with no lookup
   */
  cache_text: string;
  /**
   * "[6/1_2] after 2 restarts: Failed to trace builtin operator; …" (tlparse's); "" with none
   */
  restart_text: string;
  /**
   * SHOWN_PHASES, each at least 1% of the compile
   */
  phases: TimelinePhase[];
  /**
   * the compile's kept attempt in the Compiles tab (``compiles.compile_key``); "" where not recorded
   */
  compile_key: string;
  /**
   * its three longest phases inside it, longest first
   */
  largest_phases?: string;
}
/**
 * One timed span of a compile (``compile_rows``), nested by depth.
 */
export interface TimelinePhase {
  /**
   * Dynamo's span name: "backend_compile", "inductor_compile", "compile_file"
   */
  name: string;
  /**
   * the part of the stack: "Dynamo", "AOTAutograd", "Inductor", "code generation and C++/Triton compile"
   */
  family: string;
  /**
   * how many of the compile's shown phases hold it: 0 for its outermost spans
   */
  depth: number;
  /**
   * from the variant's first compile's start
   */
  start_s: number;
  duration_s: number;
  time: string;
}
/**
 * Recompiles in a row of one frame whose same guard failed (``recompile_runs``), said once with a count.
 */
export interface RecompileRun {
  count: number;
  variant: string;
  during_timing: boolean;
  /**
   * the last one's failed guard and Dynamo's reason (``recompile_text``): it says the limit, when hit
   */
  text: string;
}
/**
 * the kernels that took the most device time
 */
export interface KernelTable {
  /**
   * "Top kernels by device time", or "Kernels" where none was timed
   */
  title: string;
  rows: KernelTableRow[];
  /**
   * kernels in the run
   */
  total: number;
  /**
   * kernels of more than one variant: each row names its variant
   */
  several_variants: boolean;
  /**
   * why a withheld pass's kernels show shares, of the variants the rows show
   */
  withheld_notes: string[];
}
/**
 * One kernel of ``KernelTable``, its figures worded.
 */
export interface KernelTableRow {
  name: string;
  variant: string;
  language: string;
  /**
   * "1.17 ms"; its share alone where its variant's pass is withheld ("96.6% of pass"); "—" untimed
   */
  time: string;
  /**
   * "96.6%"; "" where no share was measured
   */
  share_text: string;
  /**
   * the cell lines it came from
   */
  lines: number[];
  /**
   * its first ATen ops, "aten::mm, aten::add …"
   */
  aten_ops_text: string;
}
/**
 * One kernel's cells in the panel's Kernels tab, worded (the tab sorts and pages the run's kernels by their figures and shows these words): ``RunDigest.kernel_cells`` holds one per kernel, in the run's order.
 */
export interface KernelCells {
  /**
   * "1.17 ms"; its share alone where its variant's pass is withheld ("46% of pass"); "—" untimed
   */
  time: string;
  /**
   * achieved bandwidth, "612 GB/s", "2.81 TB/s"; "—" unmeasured, or its pass withheld
   */
  bandwidth: string;
  /**
   * of the measured peak bandwidth, "46%"; "—" as above
   */
  bandwidth_share: string;
  /**
   * achieved compute, "612 TFLOP/s", "40.1 GFLOP/s"; "—" as above
   */
  compute: string;
  /**
   * of the measured peak compute, "0.4%"; "—" as above
   */
  compute_share: string;
}
/**
 * One run's digest for lists, the card and the CLI (``summarize``).
 */
export interface RunSummary {
  /**
   * DIGEST_VERSION: the store derives an older one's summary again
   */
  digest?: number;
  id: string;
  label: string;
  created_at: string;
  status: string;
  /**
   * what lists show: the status, or the verdict that says more
   */
  list_status?: string;
  outcome?: Outcome;
  notebook: string;
  device: DeviceSummary;
  torch_version?: string;
  first_line: string;
  headline: string;
  variants: VariantRow[];
  speedup: SpeedupSummary | null;
  compile_s: number | null;
  /**
   * compile_s worded, "1.2 s"; "—" where nothing compiled
   */
  compile_time?: string;
  cache_state: string;
  /**
   * "cold cache", "warm cache", "partly cached" or ""
   */
  cache_words?: string;
  /**
   * "FX graph 3 hits, 0 missed", "kernels 6, none built …"
   */
  cache_counts?: string[];
  graph_count: number;
  graph_break_count: number;
  /**
   * "7 graph breaks, 3 in DDP's wrapper"
   */
  graph_break_text?: string;
  /**
   * what an empty list of graph breaks means here
   */
  graph_break_empty_text?: string;
  ddp_wrapper_break_count?: number;
  recompile_count: number;
  kernel_count: number;
  /**
   * "32 generated kernels (cpp), 742 library calls"
   */
  kernel_text?: string;
  /**
   * "cuda (NVIDIA H200)", "cpu" where no name is known
   */
  device_text?: string;
  cell_runs?: number;
  /**
   * variant -> its measured peak, worded
   */
  peak_memory?: {
    [k: string]: string;
  };
  /**
   * why the run has no peak memory; "" when it has one
   */
  memory_note?: string;
  /**
   * the run's notes in words, in the order the engine recorded them
   */
  notes?: string[];
  correctness?: CorrectnessSummary | null;
  /**
   * what --bisect would find; "" where it would find nothing
   */
  bisect_offer?: string;
  graph_breaks?: BreakGroup[];
  warnings: string[];
  errors?: ErrorSummary[];
  recommendation?: RecommendationSummary | null;
  /**
   * [] when not measured
   */
  breakdown?: BreakdownRow[];
  /**
   * collectives after copies where timed
   */
  breakdown_columns?: BreakdownColumn[];
  /**
   * one sentence why compiled is faster or slower, or None
   */
  verdict?: string | null;
  /**
   * variant -> its pass held against its call
   */
  kernel_times?: {
    [k: string]: PassJudgment;
  };
  payback?: Payback | null;
  /**
   * None for a single-process run
   */
  distributed?: DistributedSummary | null;
  ddp_splits?: DdpSplitSummary[];
  /**
   * why a stored run cannot be read; None when it can
   */
  unreadable?: string | null;
  /**
   * what costs the compiled cell time, largest first
   */
  diagnosis?: Cause[];
  /**
   * what the list answers, with the speedup it explains
   */
  diagnosis_heading?: string;
  /**
   * a run read from a TORCH_TRACE log; None if profiled
   */
  trace?: TraceSummary | null;
  /**
   * a profile over a sequence of inputs; None for one
   */
  inputs?: InputsSummary | null;
}
/**
 * the verdict every view shows first (digest 22 on)
 */
export interface Outcome {
  kind:
    | 'trace'
    | 'eager_failed'
    | 'compile_failed'
    | 'results_differ'
    | 'ran_eagerly'
    | 'nothing_compiled'
    | 'stopped'
    | 'busy_cpu'
    | 'partly_eager'
    | 'not_measurable'
    | 'faster'
    | 'slower'
    | 'unreadable';
  /**
   * what a badge shows: "results differ", "ran eagerly", or the speedup where it is the verdict
   */
  label: string;
  /**
   * the verdict's sentence, which the headline leads with
   */
  text: string;
  tone: 'wrong' | 'eager' | 'faster' | 'slower' | 'even' | 'none';
  /**
   * False beneath a verdict that overrides the speedup, and without one
   */
  speedup_meaningful: boolean;
  /**
   * "1.53× slower — not meaningful: compiled results differ"; the phrase where meaningful
   */
  speedup_text: string;
}
/**
 * Where the run ran: ``cpu`` or ``cuda``, and the device's name.
 */
export interface DeviceSummary {
  type: string;
  name: string;
}
/**
 * One variant's figures in the summary: its timing's median and spread, compile time and error.
 */
export interface VariantRow {
  name: string;
  backend?: string | null;
  mode?: string | null;
  median_ms: number | null;
  p10_ms: number | null;
  p90_ms: number | null;
  n: number;
  first_call_s?: number | null;
  compile_s: number | null;
  recompile_s?: number | null;
  peak_memory_bytes?: number | null;
  recompiled_during_timing?: boolean;
  error: string | null;
  /**
   * a compiled variant, not eager
   */
  compiled?: boolean;
  error_listed?: boolean;
  /**
   * "4.12 ms (p10 3.9 ms / p90 4.4 ms, n=50)"; "" untimed
   */
  timing_text?: string;
  /**
   * "4.12 ms"; "—" untimed
   */
  median_time?: string;
  p10_time?: string;
  p90_time?: string;
  ratio_text?: string;
  /**
   * compile_s worded; "—" where not compiled
   */
  compile_time?: string;
  /**
   * first_call_s worded; "—" where unknown
   */
  first_call_time?: string;
  /**
   * recompile_s worded; "—" where unknown
   */
  recompile_time?: string;
  /**
   * its compile's cache, else the run's: "cold cache", ""
   */
  cache_words?: string;
  /**
   * "1.2 GiB", or why no peak was measured
   */
  peak_memory_text?: string;
}
/**
 * The speedup as the digest words it: the factor, the headline's phrase and its interval.
 */
export interface SpeedupSummary {
  value: number;
  /**
   * None: too few samples for an interval
   */
  low: number | null;
  high: number | null;
  variant: string;
  /**
   * the one short form, as the headline words it: "1.25× faster"
   */
  text: string;
  /**
   * "1.25× faster", "1.80× slower (within noise)"
   */
  phrase: string;
  has_interval: boolean;
  includes_one: boolean;
  /**
   * "[1.11×–1.43×]", as the text view words it
   */
  interval_text?: string;
  /**
   * the run has more than one compiled variant: views name this one
   */
  several?: boolean;
  not_meaningful?: string;
}
/**
 * Whether compiled results matched eager's, and the digest's sentence for it.
 */
export interface CorrectnessSummary {
  ok: boolean | null;
  max_abs_diff: number | null;
  note: string;
  method?: string;
  text?: string;
  /**
   * "9.38e+03"; "" where none was measured
   */
  max_rel_diff_text?: string;
}
/**
 * Graph breaks with the same cause at the same place, counted (a library function that breaks is compiled, and breaks, once per caller).
 */
export interface BreakGroup {
  /**
   * the cell line that led to the break
   */
  line: number | null;
  code_line: string;
  /**
   * where in a library the break is, "path.py:123", or "" when it is on the cell line itself
   */
  inside: string;
  inside_code: string;
  /**
   * one line
   */
  reason: string;
  reason_full: string;
  count: number;
  variants: string[];
  /**
   * in DDP's own wrapper: not the user's to fix
   */
  ddp_wrapper?: boolean;
  /**
   * what to do, or why there is nothing to do
   */
  note?: string;
  /**
   * "yours", "library" or "pytorch"
   */
  owner?: string;
  /**
   * the rest of the function ran eagerly
   */
  skipped_rest?: boolean;
  /**
   * Dynamo's page for this kind of break (gbNNNN), or ""
   */
  page?: string;
  /**
   * "cell line 2", "train.py line 2", or outside the cell's lines
   */
  where?: string;
  /**
   * where, with its code and the library place inside it
   */
  place?: string;
}
/**
 * Something that went wrong, at which stage, on which cell line and call.
 */
export interface ErrorSummary {
  stage: string;
  message: string;
  line: number | null;
  variant: string;
  call: number | null;
  /**
   * the exception's type, "" when unknown
   */
  type?: string;
  /**
   * "cell line 3", "train.py line 3"; "" without a line
   */
  line_text?: string;
}
/**
 * What ``--sweep`` concluded: the variant to use and the call to copy (the plain ``torch.compile(model)`` when no mode ran measurably faster than the next fastest).
 */
export interface RecommendationSummary {
  variant: string;
  call: string;
  /**
   * whether a mode won beyond the noise
   */
  measurable?: boolean;
  /**
   * the recommendation and why, in one line
   */
  text?: string;
}
/**
 * Where one call's time goes in one variant, in ms: its kinds of kernel time, the time outside kernels and the timed median, with each cell worded.
 */
export interface BreakdownRow {
  variant: string;
  /**
   * "cupti" (device times) or "host" (host times of each op's call)
   */
  method: string;
  /**
   * the whole call
   */
  median_ms: number;
  library_ms: number;
  generated_ms: number;
  aten_ms: number;
  copy_ms: number;
  kernels_ms: number;
  /**
   * median - kernels, 0 when the profiled kernels took longer than the median
   */
  outside_ms: number;
  /**
   * the kernels took longer: outside_ms reads 0
   */
  clamped?: boolean;
  /**
   * communication; 0 outside distributed runs
   */
  collective_ms?: number;
  /**
   * a profiled call's wall time
   */
  profiled_ms?: number | null;
  /**
   * False: the pass is withheld, the parts its shares
   */
  trusted?: boolean;
  /**
   * why the pass is withheld; "" when it is not
   */
  withheld_text?: string;
  /**
   * column -> its cell: "1.2 ms", "40% of pass"
   */
  texts?: {
    [k: string]: string;
  };
}
/**
 * A column of the breakdown table, keyed as ``BreakdownRow.parts``, and its heading.
 */
export interface BreakdownColumn {
  key: string;
  label: string;
}
/**
 * One variant's profiler pass held against its timed call.
 */
export interface PassJudgment {
  variant: string;
  trusted: boolean;
  /**
   * the pass's kernel time per call
   */
  kernels_ms: number;
  /**
   * the timed median
   */
  call_ms: number;
  /**
   * how far above the timed median the kernels may read
   */
  tolerance_ms: number;
  /**
   * every profiled call was preempted
   */
  preempted: boolean;
  /**
   * why the pass's times are withheld, said where they would be; "" when trusted
   */
  text: string;
  /**
   * the same in a few words, with the variant's name; "" when trusted
   */
  why: string;
}
/**
 * What compiling cost and after how many calls it pays back (``payback``).
 */
export interface Payback {
  compile_s: number;
  saving_ms: number;
  /**
   * None: it never does
   */
  calls: number | null;
  text: string;
}
/**
 * A run's place in a distributed job (``distributed_summary``).
 */
export interface DistributedSummary {
  rank: number;
  world_size: number;
  /**
   * shared by every rank of one profile call
   */
  job_id: string;
  backend: string;
  /**
   * "rank 1 of 2 (gloo), job 3f2a9c01d4e5"
   */
  text?: string;
}
/**
 * A graph DDPOptimizer split at DDP's bucket boundaries, and the digest's sentence for it.
 */
export interface DdpSplitSummary {
  variant: string;
  compile_id: string;
  graph_id: string;
  pieces: number;
  bucket_cap_bytes: number | null;
  text: string;
}
/**
 * One thing that costs the compiled cell time, what it costs, and what to do about it.
 */
export interface Cause {
  kind: string;
  /**
   * what it is, in a few words: "line 9: opt.step() runs eagerly"
   */
  title: string;
  /**
   * "3.10 ms a call (41% of the call)"; "12.3 s once"
   */
  cost_text: string;
  /**
   * what to do; "" when there is nothing to do
   */
  action: string;
  /**
   * per call
   */
  cost_ms: number | null;
  /**
   * once
   */
  cost_s: number | null;
  line: number | null;
  /**
   * a graph break's: "yours", "library" or "pytorch"; "" for other causes
   */
  owner: string;
  /**
   * the list's line: title, cost, what to do (``cause_text``)
   */
  text?: string;
}
/**
 * Where a run read from a TORCH_TRACE log came from (``trace_summary``).
 */
export interface TraceSummary {
  path: string;
  rank: number | null;
  /**
   * "" where the trace does not say
   */
  torch_version: string;
  /**
   * the file whose lines are the run's lines
   */
  script: string;
  /**
   * how many compile ids the trace names
   */
  compile_ids: number;
  /**
   * "from the TORCH_TRACE /tmp/t/x.log (rank 1), written by torch 2.13.0+cpu; lines are those of …"
   */
  text: string;
  /**
   * what of the log was skipped, counted; "" when everything was read
   */
  skipped_text: string;
  /**
   * what the views show where a profiled run's timings are: "from a TORCH_TRACE: no timings"
   */
  no_timings: string;
}
/**
 * A profile over a sequence of inputs: the sentence, a row per signature, the recompiles by input.
 */
export interface InputsSummary {
  /**
   * inputs in the sequence
   */
  count: number;
  /**
   * the cell's name bound to each input ("" for profile(fn, inputs=...))
   */
  name: string;
  /**
   * the namespace's iterable they came from ("" for profile(fn, inputs=...))
   */
  source: string;
  /**
   * "6 inputs, 2 signatures: inductor/default 1.52× faster over the sequence, weighted by calls ..."
   */
  text: string;
  /**
   * a few signatures; beyond 10, the most called (and the representative)
   */
  rows: InputSignatureRow[];
  /**
   * "… 1,204 more signatures, 19,000 inputs, each timed apart"; "" when all are listed
   */
  more_signatures_text: string;
  recompiles: InputRecompileRow[];
  /**
   * per input where compiled differed from eager on it, in words
   */
  mismatches: string[];
  /**
   * inputs compared
   */
  compared: number;
  /**
   * "compiled matches eager on each of the 6 inputs, each compared on the same input"
   */
  comparison_text: string;
  /**
   * how the samples were taken, and which signature the other figures are of
   */
  timing_text: string;
}
/**
 * One input signature of a profile over a sequence of inputs (``inputs_summary``).
 */
export interface InputSignatureRow {
  /**
   * "x: (8, 4) float32", "x: (8, 4) float32, n = 3"
   */
  signature: string;
  /**
   * the inputs that have it, 1-based (the first 100: ``inputs_text`` says them all)
   */
  inputs: number[];
  /**
   * "1–400, 402, 405–410, … (5,000 inputs)"
   */
  inputs_text: string;
  /**
   * how many calls of the sequence it served
   */
  calls: number;
  /**
   * of the sequence's calls
   */
  share: number;
  /**
   * medians on its inputs; None where not timed
   */
  eager_ms: number | null;
  /**
   * the speedup variant's
   */
  compiled_ms: number | null;
  /**
   * eager_ms in words: "1.52 ms", "—" where not timed
   */
  eager_time: string;
  /**
   * compiled_ms in words
   */
  compiled_time: string;
  /**
   * the speedup variant's samples on it
   */
  samples: number;
  speedup: number | null;
  /**
   * its 95% interval; None with too few samples
   */
  low: number | null;
  high: number | null;
  /**
   * "1.52× faster [1.40×–1.61×]", or "not timed"
   */
  speedup_text: string;
  /**
   * the speedup variant's recompiles its inputs caused
   */
  recompiles: number;
  /**
   * the seconds its inputs' calls spent compiling (the first input's first compile included)
   */
  compile_s: number;
  /**
   * compile_s in words: "2.1 s"
   */
  compile_time: string;
  /**
   * the signature the variants' times, kernels and correctness are of
   */
  representative: boolean;
}
/**
 * A recompile and the input whose call made it.
 */
export interface InputRecompileRow {
  /**
   * 1-based
   */
  input: number;
  signature: string;
  variant: string;
  /**
   * the failed guard in the user's words, then Dynamo's reason (``guards.recompile_text``)
   */
  text: string;
  /**
   * the seconds that input's call spent compiling; None on its later recompiles' rows
   */
  compile_s: number | null;
  /**
   * compile_s in words; "" where compile_s is None
   */
  compile_time: string;
}
/**
 * The data of an ``application/vnd.compile-profile.run+json`` output (``render.mime.run_payload``).
 */
export interface RunMimeData {
  version: number;
  run_id: string;
  summary: RunSummary;
  figures?: {
    [k: string]: PlotlyFigure;
  };
  /**
   * the lines the profile wrote to stderr, a repeated line once
   */
  logs?: string[];
  /**
   * the fold's heading: how many lines, how many different
   */
  logs_text?: string;
}
/**
 * A plotly figure as JSON (``render.charts``): drawn as it is, so not typed further.
 */
export interface PlotlyFigure {
  data: {
    [k: string]: unknown;
  }[];
  layout?: {
    [k: string]: unknown;
  };
  config?: {
    [k: string]: unknown;
  };
}
/**
 * GET runs: a page of the store's summaries, how many there are, and the store's change token.
 */
export interface RunsPage {
  runs: RunSummary[];
  total: number;
  token: number;
  ages?: {
    [k: string]: string;
  };
}
/**
 * Run A (before) against run B (after) (``compare``).
 */
export interface Comparison {
  a: RunRef;
  b: RunRef;
  deltas: Delta[];
  /**
   * the rows that differ first
   */
  context?: ContextRow[];
  /**
   * in B, more than in A
   */
  kernels_added: KernelCount[];
  kernels_removed: KernelCount[];
  kernels_kept: number;
}
/**
 * A run as the comparison names it.
 */
export interface RunRef {
  id: string;
  label: string;
  created_at: string;
  device: string;
  torch_version: string;
}
/**
 * One compared figure: its value in each run, worded, and B's change against A (None when undefined).
 */
export interface Delta {
  metric: string;
  a: number | null;
  b: number | null;
  a_text: string;
  b_text: string;
  /**
   * b / a - 1; None when undefined
   */
  change: number | null;
  change_text: string;
  /**
   * which run's figure is the better one; "" when neither
   */
  better: 'a' | 'b' | '';
  /**
   * the change lies within one run's interval (p10–p90, the speedup's): shown neutral
   */
  within_noise: boolean;
}
/**
 * One thing the two runs ran with (their device, torch's threads, the profile's options, the cell), each worded, and whether they differ.
 */
export interface ContextRow {
  label: string;
  a: string;
  b: string;
  differs: boolean;
}
/**
 * A kernel name (Inductor's trailing counter stripped) and how many more one run has.
 */
export interface KernelCount {
  /**
   * the match key
   */
  name: string;
  count: number;
}
/**
 * One profile call on every rank of a distributed job (``job_digest_of``).
 */
export interface JobDigest {
  job_id: string;
  world_size: number;
  backend: string;
  torchrun_id: string;
  ranks: number[];
  missing_ranks: number[];
  headline: string;
  compile_spread: CompileSpread;
  rows: JobRow[];
  divergences: JobDivergence[];
  /**
   * why the peak memory column reads "not measured", said once
   */
  peak_memory_note?: string;
  /**
   * the order DDP all-reduces the pieces the DDP buckets column counts
   */
  ddp_note?: string;
}
/**
 * The compile times of a job's ranks, and the digest's sentence for their spread.
 */
export interface CompileSpread {
  min_s: number | null;
  median_s: number | null;
  max_s: number | null;
  text: string;
}
/**
 * One rank of a job (``job_digest_of``'s rows): every figure with the digest's words for it.
 */
export interface JobRow {
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
  /**
   * calls of the step this rank made
   */
  cell_runs: number;
  /**
   * this rank's eager and compiled medians ("9.43 ms", "failed", "—")
   */
  eager_text?: string;
  compiled_text?: string;
  correctness_text?: string;
  /**
   * the run's first error, "stage: message"
   */
  error_text?: string;
  /**
   * this rank differs from the others; ``reasons`` says how
   */
  divergent: boolean;
  reasons: string[];
  /**
   * what its figures include but it did not cause
   */
  notes?: string[];
}
/**
 * A way one rank differs from the rest of its job.
 */
export interface JobDivergence {
  rank: number;
  /**
   * one of DIVERGENCE_KINDS
   */
  what: string;
  text: string;
}
/**
 * GET jobs/<job_id>: the job's digest and its runs' summaries, in rank order.
 */
export interface JobPage {
  job: JobDigest;
  runs: RunSummary[];
}
/**
 * Every compile of a run, and where they started (``GET runs/<id>/compiles``).
 */
export interface CompileIndex {
  run_id: string;
  /**
   * "7 compiles of 6 compile ids: 6 compiled, 1 restarted; 101 artifacts, 761 KB"
   */
  text: string;
  rows: CompileRow[];
  sites: SiteRow[];
  legend: StatusWord[];
  /**
   * what the Perfetto export holds: "18 compile spans of 7 compiles; no kernel events"
   */
  perfetto_text: string;
}
/**
 * One compile (an attempt) in the index.
 */
export interface CompileRow {
  link: CompileLink;
  variant: string;
  compile_id: string;
  attempt: number;
  /**
   * "forward at record.py:82"
   */
  frame: string;
  /**
   * its compile time, "28.2 s"; "—" where not logged
   */
  time: string;
  /**
   * "24 artifacts, 312 KB"
   */
  artifacts_text: string;
  /**
   * "FX graph miss; AOTAutograd miss"
   */
  cache_text: string;
}
/**
 * A compile as every view names and opens it.
 */
export interface CompileLink {
  /**
   * "trace:0/1:2": variant, compile id and attempt (what ``GET runs/<id>/compiles/<key>`` takes)
   */
  key: string;
  /**
   * tlparse's name: "[0/1_2]"; another variant's compiles with its name after it
   */
  label: string;
  /**
   * tlparse's colour: compiled, restarted, empty graph, failed, no metrics, dropped
   */
  status: 'ok' | 'restarted' | 'empty' | 'failed' | 'missing' | 'dropped';
  /**
   * "compiled after 2 restarts", "failed: InductorError: ...", "attempt Dynamo dropped"
   */
  status_text: string;
}
/**
 * One frame of the compile-site tree (tlparse's stack trie), in pre-order: ``depth`` grows where stacks part.
 */
export interface SiteRow {
  depth: number;
  /**
   * "record.py:110 in <module>", "cell line 3 in <cell>"
   */
  text: string;
  /**
   * the frame's code
   */
  code: string;
  /**
   * the compiles that started at it
   */
  compiles: CompileLink[];
}
/**
 * One status of the legend, in the words the tree's colours stand for.
 */
export interface StatusWord {
  status: 'ok' | 'restarted' | 'empty' | 'failed' | 'missing' | 'dropped';
  text: string;
}
/**
 * One compile by compile id and attempt (``GET runs/<id>/compiles/<key>``): tlparse's compile page.
 */
export interface CompileDetail {
  run_id: string;
  link: CompileLink;
  /**
   * "[0/1] forward at record.py:82"
   */
  title: string;
  /**
   * where it started, outermost first
   */
  stack: string[];
  metrics: MetricRow[];
  failure_text: string;
  /**
   * "Dynamo restarted its analysis 2 times: ..."
   */
  restarts_text: string;
  attempts: AttemptRow[];
  artifacts: ArtifactRow[];
  artifacts_text: string;
  cache_lookups: CacheLookupRow[];
  shape_facts: ShapeFactRow[];
  provenance: ProvenanceView[];
  collectives_text: string;
  tensor_meta: string[];
}
/**
 * One of the compile's metrics, worded.
 */
export interface MetricRow {
  /**
   * "entire frame", "guards"
   */
  label: string;
  /**
   * "28.2 s", "10 (shape env 0)"
   */
  value: string;
}
/**
 * One attempt of the compile id, the one shown among them.
 */
export interface AttemptRow {
  link: CompileLink;
  /**
   * "attempt 1: dropped, Dynamo restarted it (TensorifyScalarRestartAnalysis); 7 artifacts"
   */
  text: string;
  current: boolean;
}
/**
 * One artifact of the compile, in the order logged, viewable by its hash (``GET runs/<id>/artifacts/<sha256>``).
 */
export interface ArtifactRow {
  /**
   * torch's name: "inductor_output_code"
   */
  name: string;
  /**
   * "output code (the module with call())"
   */
  label: string;
  /**
   * "Dynamo", "AOTAutograd", "Inductor", "cache", "config", "other"
   */
  stage: string;
  sha256: string;
  /**
   * CodeMirror's language name: "Python", "JSON", "" (plain text)
   */
  language: string;
  /**
   * "12.3 KB, 140 lines"; "…, cut at 32 MiB" where longer than the cap
   */
  size_text: string;
}
/**
 * One cache lookup with the key it looked up.
 */
export interface CacheLookupRow {
  /**
   * "FX graph cache miss (full_miss)"
   */
  text: string;
  /**
   * the whole key
   */
  key: string;
  /**
   * "637 key components", "" where none logged
   */
  components_text: string;
  /**
   * its artifact: the key components with their values
   */
  sha256: string;
}
/**
 * A symbolic-shape decision of the compile.
 */
export interface ShapeFactRow {
  /**
   * "specialization", "guard added", "symbol created"
   */
  kind: string;
  /**
   * "s77 = L['x'].size()[0] (hint 6)", "8*s77 <= 4096"
   */
  text: string;
  /**
   * "record.py:85 (line 85): y = y * 2"; "" where the trace names no user frame
   */
  where: string;
}
/**
 * One output module's linked view: source, pre-grad graph, post-grad graph and output code.
 */
export interface ProvenanceView {
  /**
   * "output module 1 of 2 (forward)"
   */
  title: string;
  /**
   * "linked by Inductor's node mappings" or by the graphs' comments, and what that means
   */
  how: string;
  /**
   * the artifacts' hashes, "" where not logged
   */
  pre_grad: string;
  post_grad: string;
  output_code: string;
  groups: ProvenanceGroup[];
}
/**
 * One source line and what it became: the lines of each stage's artifact that came from it.
 */
export interface ProvenanceGroup {
  /**
   * the cell (script) line; None for a library's frame or nodes no frame names
   */
  line: number | null;
  /**
   * "line 83: y = torch.relu(self.lin(x))"
   */
  title: string;
  /**
   * "pre-grad linear, y → post-grad permute, addmm, relu, le → kernels extern_kernels.addmm:1, ..."
   */
  text: string;
  /**
   * "pre-grad graph lines 8–9; post-grad graph lines 4–6, 13; output code lines 33–79, 104"
   */
  lines_text: string;
  /**
   * lines in the pre-grad graph
   */
  pre_grad: number[];
  post_grad: number[];
  output_code: number[];
}
