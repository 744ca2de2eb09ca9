/* Generated from kernel_side/compile_profile/schema/profile_run.schema.json by ext/scripts/contract-types.mjs (make contract): do not edit. */

/**
 * The result of one ``%%compile_profile`` (or ``compile_profile.profile``) call.
 */
export interface ProfileRun {
  id: string;
  created_at: string;
  label: string;
  cell_source: string;
  device: Device;
  torch_version: string;
  variants?: Variant[];
  speedup?: Speedup | null;
  graphs?: Graph[];
  graph_breaks?: GraphBreak[];
  recompiles?: Recompile[];
  kernels?: Kernel[];
  compile_phases?: {
    [k: string]: number;
  };
  cache?: CacheStats;
  correctness?: Correctness | null;
  errors?: ErrorInfo[];
  status?: 'ok' | 'failed' | 'interrupted';
  notebook?: string;
  cell_runs?: number;
  notes?: Note[];
  recommendation?: Recommendation | null;
  bisection?: Bisection | null;
  configs_changed?: ConfigSetting[] | null;
  device_peaks?: DevicePeaks | null;
  memory_ratio?: number | null;
  kept_names?: string[];
  temporaries?: string[];
  kept_tensors?: KeptTensor[];
  lr_schedulers?: string[];
  distributed?: DistributedRank | null;
  ddp_splits?: DdpSplit[];
  host_load?: HostLoad | null;
  threads_trial?: ThreadsTrial | null;
  stage_s?: {
    [k: string]: number;
  };
  imported_trace?: TraceOrigin | null;
  inputs?: InputSequence | null;
  settings?: RunSettings | null;
  compiles?: CompileRecord[];
  artifact_texts?: {
    [k: string]: string;
  };
  schema_version?: number;
}
/**
 * Where the profile ran.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Device".
 */
export interface Device {
  type: 'cpu' | 'cuda';
  name: string;
  count?: number;
}
/**
 * One way of running the cell: eager, or one torch.compile configuration.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Variant".
 */
export interface Variant {
  name: string;
  backend?: string | null;
  mode?: string | null;
  dynamic?: boolean | null;
  fullgraph?: boolean;
  options?: {
    [k: string]: unknown;
  };
  timing?: Timing | null;
  first_call_s?: number | null;
  peak_memory_bytes?: number | null;
  compile_s?: number | null;
  recompile_s?: number | null;
  recompiled_during_timing?: boolean;
  torch_compile_call?: string | null;
  error?: string | null;
  error_note?: Note | null;
  compile_phases?: {
    [k: string]: number;
  };
  compile_spans?: CompileSpan[];
  cache_lookups?: CacheLookup[];
  compile_restarts?: CompileRestart[];
  cache_state?: string;
  kernel_profile?: KernelProfile | null;
  autotune?: AutotuneResult[];
  cudagraph_skips?: string[];
}
/**
 * Steady-state samples of one variant, in milliseconds.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Timing".
 */
export interface Timing {
  median_ms: number;
  p10_ms: number;
  p90_ms: number;
  n: number;
  mean_ms?: number;
  min_ms?: number;
  samples_ms?: number[];
  method?: string;
  waited_ms?: number[];
}
/**
 * A fact recorded beside the figures (why one is missing, what a run did to the notebook), as a kind
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Note".
 */
export interface Note {
  kind:
    | 'text'
    | 'already_compiled'
    | 'random_draws_differ'
    | 'optimizer_changed_by_compile'
    | 'nothing_compiled'
    | 'dispatcher_left_on'
    | 'recompiled_during_timing'
    | 'recompile_limit'
    | 'warmup_kept_compiling'
    | 'state_restored'
    | 'state_not_compared'
    | 'state_put_back'
    | 'state_advanced'
    | 'torch_lacks'
    | 'no_post_grad_on_cache_hit'
    | 'not_saved'
    | 'no_cuda_graph'
    | 'no_graph_region'
    | 'nothing_to_compare'
    | 'random_ops'
    | 'reference_distributed'
    | 'reference_changed_state'
    | 'reference_failed'
    | 'output_differs'
    | 'output_shape'
    | 'output_not_equal'
    | 'output_non_finite'
    | 'output_beyond_spread'
    | 'output_beyond_tolerance'
    | 'output_beyond_reference'
    | 'eager_changed_value'
    | 'eager_changed_values'
    | 'eager_moved'
    | 'other_rank_failed'
    | 'interrupted'
    | 'reference_quick'
    | 'reference_random'
    | 'quick_profile';
  variant?: string;
  values?: {
    [k: string]: string | number | boolean | string[];
  };
}
/**
 * One timed span of a compile (Dynamo's ``chromium_event`` begin and end): ``dynamo`` around a whole frame
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CompileSpan".
 */
export interface CompileSpan {
  compile_id: string;
  name: string;
  start_s: number;
  duration_s: number;
  depth?: number;
}
/**
 * One lookup in Inductor's FX graph cache or the AOTAutograd cache, as the compile logged it.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CacheLookup".
 */
export interface CacheLookup {
  compile_id: string;
  cache: 'fx_graph' | 'aot_autograd';
  state: string;
  detail?: string;
  key?: string;
  components?: number;
  artifact?: string;
}
/**
 * A compile whose analysis Dynamo restarted before it kept one (``compilation_metrics``' ``restart_reasons``): a
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CompileRestart".
 */
export interface CompileRestart {
  compile_id: string;
  attempt: number;
  reasons?: string[];
}
/**
 * What the separate torch.profiler pass after timing measured for one variant.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "KernelProfile".
 */
export interface KernelProfile {
  calls: number;
  total_ms: number;
  attributed_ms: number;
  method?: 'cupti' | 'host';
  outside_graphs_ms?: number | null;
  in_cuda_graphs_ms?: number;
  unmatched?: UnmatchedKernel[];
  notes?: Note[];
  breakdown?: CallBreakdown | null;
  eager_lines?: EagerLineTime[];
  profiled_call_ms?: number | null;
  preempted_calls?: number;
  waited_ms?: number | null;
  device_busy_ms?: number | null;
  event_cost_us?: number | null;
  profiler_cost_ms?: number | null;
  events?: ProfiledEvent[];
}
/**
 * A device kernel the profiling pass saw but could not tie to a generated kernel or extern call (on
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "UnmatchedKernel".
 */
export interface UnmatchedKernel {
  name: string;
  time_ms: number;
  where?: string;
}
/**
 * Where one call's kernel time goes, by kind of kernel (per call, from the profiler pass).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CallBreakdown".
 */
export interface CallBreakdown {
  library_ms?: number;
  generated_ms?: number;
  aten_ms?: number;
  copy_ms?: number;
  collective_ms?: number;
}
/**
 * Eager kernel time launched while one cell line ran (per call), and its largest ATen ops.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "EagerLineTime".
 */
export interface EagerLineTime {
  line: number;
  time_ms: number;
  ops?: string[];
}
/**
 * One kernel event of one profiled call, as the profiler recorded it (for ``export --perfetto``): a device kernel
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ProfiledEvent".
 */
export interface ProfiledEvent {
  name: string;
  start_us: number;
  duration_us: number;
  track?: 'device' | 'host';
  kernel_id?: string;
}
/**
 * One op max-autotune benchmarked (from the structured trace's autotuning events).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "AutotuneResult".
 */
export interface AutotuneResult {
  op: string;
  shape?: string;
  dtypes?: string;
  choices?: number | null;
  triton_choices?: number | null;
  best?: string;
  best_description?: string;
  best_ms?: number | null;
  best_triton?: string;
  best_triton_ms?: number | null;
  autotune_s?: number | null;
  compile_id?: string;
}
/**
 * Median eager time over median compiled time, with a bootstrap interval.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Speedup".
 */
export interface Speedup {
  value: number;
  low: number | null;
  high: number | null;
  variant: string;
  confidence?: number;
}
/**
 * One FX graph seen while compiling: Dynamo's, AOTAutograd's or Inductor's post-grad one.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Graph".
 */
export interface Graph {
  id: string;
  kind: 'dynamo' | 'aot_forward' | 'aot_backward' | 'aot_inference' | 'post_grad';
  code: string;
  variant?: string;
  compile_id?: string;
  op_counts?: {
    [k: string]: number;
  };
  lines?: number[];
  input_shapes?: number[][];
  guards?: Guard[];
  collectives?: {
    [k: string]: number;
  };
}
/**
 * One check Dynamo runs before reusing a compiled graph (``dynamo_cpp_guards_str`` in the trace).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Guard".
 */
export interface Guard {
  code: string;
  kind: string;
  source?: string;
  line?: number | null;
  user_name?: string;
  user_expr?: string;
}
/**
 * Where Dynamo stopped tracing and why; ``line`` is the 1-based cell line (None when outside the cell).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "GraphBreak".
 */
export interface GraphBreak {
  reason: string;
  line: number | null;
  code_line?: string;
  variant?: string;
  compile_id?: string;
  filename?: string;
  file_line?: number | null;
  file_code?: string;
  file_function?: string;
  file_cell?: number | null;
}
/**
 * One recompilation of a frame (one new compile id): the guard failure that made Dynamo compile it again.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Recompile".
 */
export interface Recompile {
  reason: string;
  variant?: string;
  compile_id?: string;
  during_timing?: boolean;
  source?: string;
  line?: number | null;
  limit?: string;
  frame?: string;
  filename?: string;
  file_line?: number | null;
  user_name?: string;
  user_expr?: string;
  change?: string;
  dim?: number | null;
  expected?: string;
  actual?: string;
  input?: number | null;
}
/**
 * A kernel Inductor generated (or an extern call it emitted), with where it came from.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Kernel".
 */
export interface Kernel {
  name: string;
  language: 'triton' | 'cpp' | 'extern';
  source: string;
  graph_id: string;
  aten_ops?: string[];
  lines?: number[];
  variant?: string;
  id?: string;
  kind?: '' | 'generated' | 'library' | 'aten' | 'copy' | 'collective';
  launches?: string[];
  device_time_ms?: number | null;
  share?: number | null;
  launches_per_call?: number | null;
  launch_grid?: number[];
  block?: number[];
  launch_config?: string;
  in_cuda_graph?: boolean | null;
  device_kernels?: string[];
  bytes?: number | null;
  bytes_source?: string;
  achieved_gbps?: number | null;
  bandwidth_share?: number | null;
  flops?: number | null;
  achieved_tflops?: number | null;
  compute_share?: number | null;
}
/**
 * What Inductor's caches held for the compiles (the first calls' and every recompile's).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CacheStats".
 */
export interface CacheStats {
  fx_graph_hits?: number;
  fx_graph_misses?: number;
  aot_autograd_hits?: number;
  aot_autograd_misses?: number;
  kernels?: number;
  kernels_built?: number | null;
  state?: 'cold' | 'warm' | 'mixed' | 'none';
}
/**
 * Compiled outputs compared against eager ones (and a float64 eager reference, when one could run).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Correctness".
 */
export interface Correctness {
  ok: boolean | null;
  max_abs_diff?: number | null;
  max_rel_diff?: number | null;
  compared?: string[];
  mismatched?: string[];
  note?: Note | null;
  method?: string;
  checks?: OutputCheck[];
  reference_float32_ops?: string[];
  reference_fallback?: string;
  replayed?: string[];
  changed_between_runs?: string[];
  not_replayed?: string[];
  not_replayed_reason?: string;
}
/**
 * How one output (a tensor or number the cell produced) was judged.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "OutputCheck".
 */
export interface OutputCheck {
  path: string;
  dtype: string;
  ok: boolean;
  max_abs_diff?: number | null;
  compiled_rmse?: number | null;
  eager_rmse?: number | null;
  allowed_rmse?: number | null;
  rmse_multiplier?: number | null;
  rmse_slack?: number | null;
  why?: Note | null;
  eager_spread_rmse?: number | null;
  compiled_eager_rmse?: number | null;
  changed?: Note | null;
}
/**
 * Something that went wrong, at which stage, and the cell line when there is one.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ErrorInfo".
 */
export interface ErrorInfo {
  stage: string;
  message: string;
  type?: string;
  variant?: string;
  line?: number | null;
  traceback?: string;
  call?: number | null;
  cause?: '' | 'iterator_ran_out' | 'recompile_failed' | 'later_run_failed';
  why?: Note | null;
  compile_stage?: '' | 'dynamo' | 'aot_autograd' | 'inductor_lowering' | 'codegen' | 'kernel_compile';
  frame_file?: string;
  frame_line?: number | null;
  frame_code?: string;
  aot_eager?: '' | 'runs' | 'fails';
  aot_eager_error?: string;
  graph_lines?: number[];
  toolchain?: '' | 'works' | 'broken';
  toolchain_error?: string;
  reproducer?: string;
}
/**
 * What ``--sweep`` measured: the fastest compiled variant and its ``torch.compile`` call, and how much
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Recommendation".
 */
export interface Recommendation {
  variant: string;
  call: string;
  runner_up?: string;
  margin?: number | null;
  margin_low?: number | null;
  margin_high?: number | null;
  plain_variant?: string;
  plain_call?: string;
}
/**
 * ``--bisect``: a failed compile, or a variant whose results differed from eager, bisected with PyTorch's
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Bisection".
 */
export interface Bisection {
  variant: string;
  outcome: 'found' | 'backend' | 'not_reproduced' | 'timed_out' | 'failed' | 'setup';
  kind?: 'failure' | 'mismatch';
  backend?: string;
  subsystem?: string;
  bisect_number?: number | null;
  debug_info?: string;
  switch?: string;
  runs?: number;
  seconds?: number;
  error?: string;
}
/**
 * A compiler setting in force that is not at its default (``engine/failure/changed_settings.py``): its full name
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ConfigSetting".
 */
export interface ConfigSetting {
  name: string;
  value: string;
  default: string;
}
/**
 * Ceilings measured on the device in the same session, with the vendor's figures beside them.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "DevicePeaks".
 */
export interface DevicePeaks {
  copy_gbps: number;
  bf16_matmul_tflops: number;
  vendor_gbps?: number | null;
  vendor_bf16_tflops?: number | null;
  method?: string;
}
/**
 * A tensor the cell keeps (it stays bound after the cell) that a later line of the cell also reads.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "KeptTensor".
 */
export interface KeptTensor {
  name: string;
  line: number;
  used_at: number[];
  shape: number[];
  dtype: string;
  bytes: number;
  traffic_ms?: number | null;
  bandwidth_gbps?: number | null;
}
/**
 * Where a run sat in a ``torch.distributed`` job (e.g. under ``torchrun``).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "DistributedRank".
 */
export interface DistributedRank {
  rank: number;
  world_size: number;
  backend: string;
  job_id: string;
  local_rank?: number;
  host?: string;
  torchrun_id?: string;
  calls_by_stage?: {
    [k: string]: number;
  };
}
/**
 * DDPOptimizer split one Dynamo graph at DDP's gradient-bucket boundaries and compiled each piece
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "DdpSplit".
 */
export interface DdpSplit {
  variant: string;
  compile_id: string;
  graph_id: string;
  buckets?: DdpBucket[];
  bucket_cap_bytes?: number | null;
}
/**
 * One piece of a DDPOptimizer split: the parameters whose gradients DDP all-reduces together.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "DdpBucket".
 */
export interface DdpBucket {
  index: number;
  params?: string[];
  bytes?: number;
  graph_id?: string;
}
/**
 * What other processes used of the machine's CPUs while the profile timed (``engine.timing.host_load``).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "HostLoad".
 */
export interface HostLoad {
  other_processes_cores: number;
  cores: number;
  threads: number;
}
/**
 * The eager call timed again at ``threads`` torch threads (the cores other processes left free) right after
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ThreadsTrial".
 */
export interface ThreadsTrial {
  threads: number;
  user_threads: number;
  eager_ms: number;
  samples?: number;
}
/**
 * Where a run read from a structured trace came from (``compile-profile import-trace``): the
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "TraceOrigin".
 */
export interface TraceOrigin {
  path: string;
  rank?: number | null;
  torch_version?: string;
  script?: string;
  script_found?: boolean;
  script_read_from?: string;
  records?: number;
  skipped_lines?: number;
  unknown_events?: {
    [k: string]: number;
  };
  unreadable_events?: {
    [k: string]: number;
  };
  compile_ids?: string[];
  content_sha256?: string;
  bad_records?: number;
  bad_record_lines?: SkippedRecord[];
  files_read?: string[];
}
/**
 * A record of a TORCH_TRACE log that was skipped: its metadata not of its kind's types (``"stack": 1.5``), or
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "SkippedRecord".
 */
export interface SkippedRecord {
  line: number;
  kind: string;
  why: string;
}
/**
 * A profile over a sequence of inputs (``profile(fn, inputs=[...])``, ``--inputs NAME=ITERABLE``): each
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "InputSequence".
 */
export interface InputSequence {
  count: number;
  signatures?: InputSignature[];
  calls?: InputCall[];
  representative?: number;
  name?: string;
  source?: string;
}
/**
 * One distinct input signature of a profile over a sequence of inputs: what Dynamo guards on that can be
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "InputSignature".
 */
export interface InputSignature {
  parts: string[];
  inputs?: number[];
  timings?: {
    [k: string]: Timing;
  };
  speedup?: Speedup | null;
  budget_s?: number;
}
/**
 * One input of the sequence, as the sequence pass ran it: eagerly and under each compiled variant, in the
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "InputCall".
 */
export interface InputCall {
  index: number;
  signature: number;
  compile_s?: {
    [k: string]: number;
  };
  matches?: boolean | null;
  not_compared?: Note | null;
  mismatched?: string[];
  max_abs_diff?: number | null;
}
/**
 * How the profile ran, beside what it measured: torch's threads as the cell left them after its first run, and
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "RunSettings".
 */
export interface RunSettings {
  torch_threads: number;
  interop_threads: number;
  warmup: number;
  repeat: number;
  budget_s: number;
  quick?: boolean;
  check_correctness?: boolean;
  inputs?: string;
}
/**
 * One compile, by compile id and attempt (tlparse's ``[0/1_2]``), as Dynamo, AOTAutograd and Inductor logged
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CompileRecord".
 */
export interface CompileRecord {
  variant: string;
  compile_id: string;
  attempt?: number;
  status?: 'ok' | 'restarted' | 'empty' | 'failed' | 'missing' | 'dropped';
  restart_reason?: string;
  stack?: CompileFrame[];
  metrics?: CompileMetrics | null;
  artifacts?: Artifact[];
  cache_lookups?: CacheLookup[];
  shape_facts?: ShapeFact[];
  provenance?: Provenance[];
  collectives?: string[];
  tensor_meta?: string[];
  execution_order?: string[];
  start_s?: number | null;
}
/**
 * A frame of the stack a compile started from (``dynamo_start``), outermost first.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CompileFrame".
 */
export interface CompileFrame {
  filename: string;
  line: number;
  name: string;
  code?: string;
  cell_line?: number | null;
}
/**
 * What Dynamo's ``compilation_metrics`` (and a lazily compiled backward's ``bwd_compilation_metrics``) logged
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CompileMetrics".
 */
export interface CompileMetrics {
  entire_frame_s?: number | null;
  backend_s?: number | null;
  inductor_s?: number | null;
  code_gen_s?: number | null;
  dynamo_before_restart_s?: number | null;
  backward_inductor_s?: number | null;
  remote_cache_saved_s?: number | null;
  cache_size?: number | null;
  accumulated_cache_size?: number | null;
  guard_count?: number | null;
  shape_env_guard_count?: number | null;
  graph_op_count?: number | null;
  graph_node_count?: number | null;
  graph_input_count?: number | null;
  compliant_custom_ops?: string[];
  non_compliant_ops?: string[];
  restart_reasons?: string[];
  fail_type?: string;
  fail_reason?: string;
  fail_file?: string;
  fail_line?: number | null;
}
/**
 * One intermediate product a compile logged (``TORCH_TRACE``'s payloads, what tlparse lists per compile id): a
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Artifact".
 */
export interface Artifact {
  name: string;
  sha256: string;
  bytes: number;
  lines: number;
  language?: 'python' | 'cpp' | 'json' | 'text';
  cut?: boolean;
}
/**
 * A symbolic-shape decision of one compile (tlparse's compile page): a ``specialization`` (a dynamic size fixed
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ShapeFact".
 */
export interface ShapeFact {
  kind: 'specialization' | 'guard' | 'symbol';
  text: string;
  sources?: string[];
  value?: string;
  frame?: CompileFrame | null;
}
/**
 * How one Inductor output module came from the user's code: its pre-grad graph, post-grad graph and output code
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Provenance".
 */
export interface Provenance {
  pre_grad?: string;
  post_grad?: string;
  output_code?: string;
  mapped?: boolean;
  nodes?: ProvenanceNode[];
  graph?: string;
}
/**
 * One node of a compiled graph at one stage, where it sits in that stage's artifact and what it became.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ProvenanceNode".
 */
export interface ProvenanceNode {
  stage: 'pre_grad' | 'post_grad' | 'output_code';
  name: string;
  lines?: number[];
  definition?: number[];
  line?: number | null;
  file?: string;
  file_line?: number | null;
  to?: string[];
}
/**
 * The result of one ``%%compile_profile`` (or ``compile_profile.profile``) call.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ProfileRun".
 */
export interface ProfileRun1 {
  id: string;
  created_at: string;
  label: string;
  cell_source: string;
  device: Device;
  torch_version: string;
  variants?: Variant[];
  speedup?: Speedup | null;
  graphs?: Graph[];
  graph_breaks?: GraphBreak[];
  recompiles?: Recompile[];
  kernels?: Kernel[];
  compile_phases?: {
    [k: string]: number;
  };
  cache?: CacheStats;
  correctness?: Correctness | null;
  errors?: ErrorInfo[];
  status?: 'ok' | 'failed' | 'interrupted';
  notebook?: string;
  cell_runs?: number;
  notes?: Note[];
  recommendation?: Recommendation | null;
  bisection?: Bisection | null;
  configs_changed?: ConfigSetting[] | null;
  device_peaks?: DevicePeaks | null;
  memory_ratio?: number | null;
  kept_names?: string[];
  temporaries?: string[];
  kept_tensors?: KeptTensor[];
  lr_schedulers?: string[];
  distributed?: DistributedRank | null;
  ddp_splits?: DdpSplit[];
  host_load?: HostLoad | null;
  threads_trial?: ThreadsTrial | null;
  stage_s?: {
    [k: string]: number;
  };
  imported_trace?: TraceOrigin | null;
  inputs?: InputSequence | null;
  settings?: RunSettings | null;
  compiles?: CompileRecord[];
  artifact_texts?: {
    [k: string]: string;
  };
  schema_version?: number;
}
