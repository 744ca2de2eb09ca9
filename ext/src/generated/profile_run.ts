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
  /**
   * --bisect: where a failed compile starts to fail
   */
  bisection?: Bisection | null;
  configs_changed?: ConfigSetting[] | null;
  device_peaks?: DevicePeaks | null;
  /**
   * eager peak memory / compiled peak memory (PT2 dashboard's compression ratio)
   */
  memory_ratio?: number | null;
  /**
   * what the cell keeps (published, bound after it)
   */
  kept_names?: string[];
  /**
   * what it assigns but does not keep (--keep)
   */
  temporaries?: string[];
  /**
   * large kept intermediates
   */
  kept_tensors?: KeptTensor[];
  lr_schedulers?: string[];
  /**
   * set when torch.distributed was initialised
   */
  distributed?: DistributedRank | null;
  /**
   * graphs DDPOptimizer split at bucket boundaries
   */
  ddp_splits?: DdpSplit[];
  /**
   * other processes' CPU use while timing (Linux)
   */
  host_load?: HostLoad | null;
  /**
   * CPU: timed again at fewer threads, where torch had more than free cores
   */
  threads_trial?: ThreadsTrial | null;
  stage_s?: {
    [k: string]: number;
  };
  /**
   * set on a run read from a TORCH_TRACE log: no timings
   */
  imported_trace?: TraceOrigin | null;
  /**
   * set on a suite entry's run, by the suite's child process
   */
  suite_entry?: SuiteEntryRef | null;
  inputs?: InputSequence | null;
  /**
   * torch's threads and the profile's options (None before they were recorded)
   */
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
  /**
   * its exception, in one line; or "" with ``error_note`` set
   */
  error?: string | null;
  /**
   * a failure the profile states (another rank's), worded by the digest
   */
  error_note?: Note | null;
  compile_phases?: {
    [k: string]: number;
  };
  compile_spans?: CompileSpan[];
  cache_lookups?: CacheLookup[];
  compile_restarts?: CompileRestart[];
  cache_state?: string;
  /**
   * the profiler pass after timing (every variant)
   */
  kernel_profile?: KernelProfile | null;
  autotune?: AutotuneResult[];
  /**
   * why CUDA graphs were not used (reduce-overhead)
   */
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
  /**
   * "host" (perf_counter around a synchronised call) or "cuda_events"
   */
  method?: string;
  waited_ms?: number[];
  faults?: number[];
}
/**
 * A fact recorded beside the figures (why one is missing, what a run did to the notebook), as a kind and its values; ``digest.notes`` words it, so the engine composes no sentence.
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
    | 'reference_quick_needed'
    | 'reference_random'
    | 'quick_profile';
  variant?: string;
  values?: {
    [k: string]: string | number | boolean | string[];
  };
}
/**
 * One timed span of a compile (Dynamo's ``chromium_event`` begin and end): ``dynamo`` around a whole frame compile, ``bytecode_tracing``, ``backend_compile``, ``inductor_compile``, ``code_gen``, ``compile_file`` ... nested as they ran.  ``depth`` 0 is a span no other of its compile encloses; ``start_s`` is wall-clock seconds (the events' own clock: epoch seconds), so spans of one run can be laid side by side.  A backward compiled lazily at the first ``backward()`` has depth-0 spans of its own under the forward's compile id.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CompileSpan".
 */
export interface CompileSpan {
  /**
   * "0/0"; Dynamo's attempt suffix where a restart made one ("0/0_1")
   */
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
  /**
   * "hit", "miss", "bypass"
   */
  state: string;
  /**
   * torch's finer status ("full_miss", ...) or why the cache was bypassed
   */
  detail?: string;
  key?: string;
  components?: number;
  /**
   * the sha256 of its payload (``Artifact``), the key components with their values
   */
  artifact?: string;
}
/**
 * A compile whose analysis Dynamo restarted before it kept one (``compilation_metrics``' ``restart_reasons``): a graph break restarts it to compile the part before the break, a speculation that failed (``TensorifyScalar RestartAnalysis``) to trace again.  ``attempt`` is the attempt kept, as tlparse names it (``[6/1_2]``: two restarts), ``reasons`` each restart's reason, in order, in its first line.
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
  /**
   * every profiled call (a busy CPU adds calls: ``engine.kernels.profiler_pass.record_trace``)
   */
  calls: number;
  total_ms: number;
  attributed_ms: number;
  method?: 'cupti' | 'host';
  /**
   * time of code Dynamo did not compile (device; CPU: host ops' time)
   */
  outside_graphs_ms?: number | null;
  in_cuda_graphs_ms?: number;
  /**
   * largest first, bounded
   */
  unmatched?: UnmatchedKernel[];
  notes?: Note[];
  breakdown?: CallBreakdown | null;
  eager_lines?: EagerLineTime[];
  profiled_call_ms?: number | null;
  preempted_calls?: number;
  /**
   * the median wait for a CPU of the calls the figures come from (CPU, Linux)
   */
  waited_ms?: number | null;
  device_busy_ms?: number | null;
  event_cost_us?: number | null;
  profiler_cost_ms?: number | null;
  events?: ProfiledEvent[];
}
/**
 * A device kernel the profiling pass saw but could not tie to a generated kernel or extern call (on CPU: a host op a compiled variant's calls ran outside its compiled graphs).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "UnmatchedKernel".
 */
export interface UnmatchedKernel {
  name: string;
  time_ms: number;
  /**
   * "in compiled graph", "in CUDA graph", "outside compiled graphs"
   */
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
  /**
   * collectives: NCCL kernels on CUDA, c10d/gloo ops' host time on CPU
   */
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
  /**
   * the line's ATen ops, most time first, bounded
   */
  ops?: string[];
}
/**
 * One kernel event of one profiled call, as the profiler recorded it (for ``export --perfetto``): a device kernel on a GPU, a kernel's or op's host call on a CPU.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ProfiledEvent".
 */
export interface ProfiledEvent {
  name: string;
  /**
   * from the call's start
   */
  start_us: number;
  duration_us: number;
  track?: 'device' | 'host';
  /**
   * the ``Kernel.id`` it was attributed to, "" where none
   */
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
  /**
   * NaN (None once stored) when there were too few samples for an interval
   */
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
  /**
   * Dynamo graphs: what must hold to reuse the compile
   */
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
  /**
   * the innermost frame: where Dynamo stopped, in the cell or in a library it called
   */
  filename?: string;
  file_line?: number | null;
  /**
   * the code at filename:file_line
   */
  file_code?: string;
  /**
   * the function of that frame (``scale_by_max``), where the trace names it
   */
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
  /**
   * the value whose guard failed, as Dynamo names it (``L['x']``)
   */
  source?: string;
  /**
   * the cell line that value comes from
   */
  line?: number | null;
  limit?: string;
  frame?: string;
  filename?: string;
  file_line?: number | null;
  resumes_after?: number | null;
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
  /**
   * unique within the run (names repeat across graphs and variants)
   */
  id?: string;
  kind?: '' | 'generated' | 'library' | 'aten' | 'copy' | 'collective';
  /**
   * its call sites in the generated wrapper
   */
  launches?: string[];
  /**
   * per cell call, summed over its launches (see KernelProfile)
   */
  device_time_ms?: number | null;
  /**
   * of the variant's KernelProfile.total_ms
   */
  share?: number | null;
  launches_per_call?: number | null;
  /**
   * as launched (the profiler's grid), when known
   */
  launch_grid?: number[];
  block?: number[];
  /**
   * Triton's chosen config, e.g. "XBLOCK=1024, num_warps=4, num_stages=1"
   */
  launch_config?: string;
  /**
   * ran inside a CUDA graph replay (reduce-overhead)
   */
  in_cuda_graph?: boolean | null;
  /**
   * device kernel names seen for it (e.g. cuBLAS)
   */
  device_kernels?: string[];
  /**
   * moved per cell call (each argument once; in-place ones twice)
   */
  bytes?: number | null;
  /**
   * "inductor" (kernel_num_gb) or "arguments" (recorded launch arguments)
   */
  bytes_source?: string;
  achieved_gbps?: number | null;
  /**
   * of DevicePeaks.copy_gbps
   */
  bandwidth_share?: number | null;
  /**
   * per cell call, matmul/convolution/attention only
   */
  flops?: number | null;
  achieved_tflops?: number | null;
  /**
   * of DevicePeaks.bf16_matmul_tflops (bf16/fp16 operands only)
   */
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
  /**
   * generated kernels (Triton, C++) in the compiles' code: each built or found in a kernel cache
   */
  kernels?: number;
  /**
   * kernel binaries the compiles wrote to the kernel caches
   */
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
  /**
   * why nothing was compared, or how the comparison was limited
   */
  note?: Note | null;
  method?: string;
  checks?: OutputCheck[];
  /**
   * e.g. "aten._grouped_mm"
   */
  reference_float32_ops?: string[];
  /**
   * what stopped a plain float64 run, where the reference is "mixed" or "float32"
   */
  reference_fallback?: string;
  reference_rounded_casts?: string[];
  replayed?: string[];
  changed_between_runs?: string[];
  not_replayed?: string[];
  /**
   * the error the code raised on a replay
   */
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
  /**
   * against the reference
   */
  compiled_rmse?: number | null;
  eager_rmse?: number | null;
  /**
   * rmse_multiplier x eager_rmse (or eager_spread_rmse) + rmse_slack
   */
  allowed_rmse?: number | null;
  /**
   * 2 (fp32), 3 (fp16/bf16, fewer than 1000 elements)
   */
  rmse_multiplier?: number | null;
  /**
   * absolute: a tenth of the benchmark runner's tol for the dtype
   */
  rmse_slack?: number | null;
  /**
   * why it failed (a kind and its figures, worded by ``digest.notes``)
   */
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
 * What ``--sweep`` measured: the fastest compiled variant and its ``torch.compile`` call, and how much faster it ran than the next fastest (``runner_up``): the ratio of their medians with its 95% interval. The digest says whether that is a measurable difference (``digest.recommendation.recommendation_digest``).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Recommendation".
 */
export interface Recommendation {
  variant: string;
  call: string;
  /**
   * "" with one compiled variant, and in runs before schema 2
   */
  runner_up?: string;
  /**
   * runner_up's median / variant's median
   */
  margin?: number | null;
  margin_low?: number | null;
  margin_high?: number | null;
  /**
   * the swept variant with no mode (torch.compile's default), and its call
   */
  plain_variant?: string;
  plain_call?: string;
}
/**
 * ``--bisect``: a failed compile, or a variant whose results differed from eager, bisected with PyTorch's ``CompilerBisector`` (``engine/failure/bisection.py``): the backend where the failure or the difference starts (eager, aot_eager, aot_eager_decomp_partition, inductor) and, within it, the subsystem (a pass list, the lowerings, a config switch) and how many of its applications it took, with the bisector's note on that application (the lowering's op, the pass's name).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Bisection".
 */
export interface Bisection {
  /**
   * the variant bisected
   */
  variant: string;
  outcome: 'found' | 'backend' | 'not_reproduced' | 'timed_out' | 'failed' | 'setup';
  /**
   * what was bisected: a failed compile, or results that differ
   */
  kind?: 'failure' | 'mismatch';
  backend?: string;
  subsystem?: string;
  bisect_number?: number | null;
  debug_info?: string;
  /**
   * the config setting that avoids it, where the subsystem is one (``fallback_random = True``)
   */
  switch?: string;
  /**
   * test runs of the code
   */
  runs?: number;
  seconds?: number;
  /**
   * the bisection's own error, for outcome "failed"
   */
  error?: string;
}
/**
 * A compiler setting in force that is not at its default (``engine/failure/changed_settings.py``): its full name (``torch._inductor.config.cpp.cxx``), its value and its default, each as ``repr`` writes it.
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
  /**
   * device-to-device copy, bytes read plus bytes written
   */
  copy_gbps: number;
  bf16_matmul_tflops: number;
  vendor_gbps?: number | null;
  /**
   * dense, no sparsity
   */
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
  /**
   * where the cell first assigns it
   */
  line: number;
  /**
   * later lines that read it
   */
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
  /**
   * the default process group's backend: "gloo", "nccl", ...
   */
  backend: string;
  job_id: string;
  local_rank?: number;
  host?: string;
  /**
   * torchrun's run id (TORCHELASTIC_RUN_ID), when it set one
   */
  torchrun_id?: string;
  /**
   * calls of the step made in each stage
   */
  calls_by_stage?: {
    [k: string]: number;
  };
}
/**
 * DDPOptimizer split one Dynamo graph at DDP's gradient-bucket boundaries and compiled each piece on its own, so that DDP's all-reduce of a bucket can overlap the backward of the next: pieces of one graph, not graph breaks (``torch/_dynamo/backends/distributed.py``).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "DdpSplit".
 */
export interface DdpSplit {
  variant: string;
  compile_id: string;
  /**
   * the Dynamo graph that was split
   */
  graph_id: string;
  buckets?: DdpBucket[];
  /**
   * the DDP module's bucket_bytes_cap, when the profile saw it
   */
  bucket_cap_bytes?: number | null;
}
/**
 * One piece of a DDPOptimizer split: the parameters whose gradients DDP all-reduces together.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "DdpBucket".
 */
export interface DdpBucket {
  /**
   * in the order the pieces run in the forward
   */
  index: number;
  /**
   * as the graph names them, e.g. "layers.2.weight"
   */
  params?: string[];
  /**
   * the parameters' size, as DDPOptimizer counts them against the bucket cap
   */
  bytes?: number;
  /**
   * the AOT forward graph compiled for this piece, when one was recorded
   */
  graph_id?: string;
}
/**
 * What other processes used of the machine's CPUs while the profile timed (``engine.timing.host_load``).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "HostLoad".
 */
export interface HostLoad {
  /**
   * their busy CPU time over the timed rounds' wall time, in cores
   */
  other_processes_cores: number;
  /**
   * the cores this process may run on
   */
  cores: number;
  /**
   * the threads the profiled code wanted: torch's intra-op threads on CPU, 1 on a GPU
   */
  threads: number;
}
/**
 * The eager call timed again at ``threads`` torch threads (the cores other processes left free) right after the timed rounds, which ran at ``user_threads`` (``engine.timing.threads_trial``): what ``torch.set_num_threads(threads)`` gives on this machine, measured.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ThreadsTrial".
 */
export interface ThreadsTrial {
  threads: number;
  user_threads: number;
  /**
   * median per call at ``threads``
   */
  eager_ms: number;
  samples?: number;
}
/**
 * Where a run read from a structured trace came from (``compile-profile import-trace``): the ``TORCH_TRACE`` log of a run no profile made, a script's or a job rank's.  Such a run holds what the trace holds (graphs, breaks, recompiles, guards, compile time, cache hits, kernels) and no timings: it has one variant, ``trace``, never timed, no eager variant and no speedup.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "TraceOrigin".
 */
export interface TraceOrigin {
  /**
   * the trace file, absolute
   */
  path: string;
  /**
   * the rank that wrote it, where the trace names one (a torchrun job's)
   */
  rank?: number | null;
  /**
   * the torch that wrote it, where the trace says (2.10 and later do, 2.6 does not)
   */
  torch_version?: string;
  /**
   * the file whose lines are the run's "cell" lines: the outermost user frame of its compiles
   */
  script?: string;
  /**
   * whether that file was read here (else its lines have no code beside them)
   */
  script_found?: boolean;
  script_read_from?: string;
  /**
   * trace records read
   */
  records?: number;
  /**
   * lines that were no record (a truncated tail, another program's output)
   */
  skipped_lines?: number;
  unknown_events?: {
    [k: string]: number;
  };
  unreadable_events?: {
    [k: string]: number;
  };
  /**
   * every compile id the trace names, in order
   */
  compile_ids?: string[];
  content_sha256?: string;
  /**
   * records skipped as not of their kind's types, or with a payload cut short
   */
  bad_records?: number;
  /**
   * the first of them
   */
  bad_record_lines?: SkippedRecord[];
  files_read?: string[];
}
/**
 * A record of a TORCH_TRACE log that was skipped: its metadata not of its kind's types (``"stack": 1.5``), or its payload not the one torch logged (cut short: its MD5 differs).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "SkippedRecord".
 */
export interface SkippedRecord {
  /**
   * its line in the log, from 1
   */
  line: number;
  /**
   * its event kind (an artifact's name)
   */
  kind: string;
  /**
   * what is wrong with it
   */
  why: string;
}
/**
 * The suite entry a run is (``compile-profile suite``): its process built the step from a collection's builder, so no notebook cell holds it, and running it again is the suite's ``--only ENTRY`` (the panel's Re-run says so).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "SuiteEntryRef".
 */
export interface SuiteEntryRef {
  suite_id: string;
  /**
   * the entry's name in the suite ("gpt2 (training, bfloat16)")
   */
  entry: string;
}
/**
 * A profile over a sequence of inputs (``profile(fn, inputs=[...])``, ``--inputs NAME=ITERABLE``): each input run in order once (``calls``: the recompiles each caused are ``Recompile.input``), then each signature timed apart; the variants' ``timing``, the kernel pass and ``correctness`` are of the ``representative`` input's signature, ``ProfileRun.speedup`` is over the whole sequence, weighted by calls.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "InputSequence".
 */
export interface InputSequence {
  /**
   * inputs in the sequence
   */
  count: number;
  signatures?: InputSignature[];
  calls?: InputCall[];
  /**
   * the input the single-input figures were measured on (its signature's first)
   */
  representative?: number;
  /**
   * the cell's name bound to each input (--inputs NAME=...); "" for profile(fn, inputs=...)
   */
  name?: string;
  /**
   * what the inputs came from, as given (the namespace's name; "" for profile())
   */
  source?: string;
}
/**
 * One distinct input signature of a profile over a sequence of inputs: what Dynamo guards on that can be read off an input itself (each tensor's shape, dtype, device and requires_grad; each Python scalar's value), and what the profile measured on the inputs that share it.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "InputSignature".
 */
export interface InputSignature {
  /**
   * per argument (a cell: the bound name), as "x: (8, 4) float32" or "n = 3"
   */
  parts: string[];
  /**
   * the inputs that have it, 0-based, in order
   */
  inputs?: number[];
  timings?: {
    [k: string]: Timing;
  };
  /**
   * eager over the run's speedup variant on these inputs, with its interval
   */
  speedup?: Speedup | null;
  /**
   * its share of the timing budget
   */
  budget_s?: number;
}
/**
 * One input of the sequence, as the sequence pass ran it: eagerly and under each compiled variant, in the order given, from the same state and random seed, so the two are compared on the same input.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "InputCall".
 */
export interface InputCall {
  index: number;
  /**
   * into ``InputSequence.signatures``
   */
  signature: number;
  /**
   * variant -> seconds its call compiled
   */
  compile_s?: {
    [k: string]: number;
  };
  /**
   * compiled (the speedup variant) within tolerance of eager; None: not compared
   */
  matches?: boolean | null;
  /**
   * why not, where it was not ("random_ops": the code draws random numbers)
   */
  not_compared?: Note | null;
  /**
   * the outputs that differ
   */
  mismatched?: string[];
  max_abs_diff?: number | null;
}
/**
 * How the profile ran, beside what it measured: torch's threads as the cell left them after its first run, and the profile's own options (the compiled variants record theirs).  Compare shows where two runs differ in them first: a 92.7 % drop in eager time between two runs of one cell came from its threads and options, which Compare did not show.  None in a run stored before they were recorded.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "RunSettings".
 */
export interface RunSettings {
  /**
   * torch.get_num_threads(): intra-op threads (OpenMP on CPU)
   */
  torch_threads: number;
  /**
   * torch.get_num_interop_threads()
   */
  interop_threads: number;
  warmup: number;
  repeat: number;
  budget_s: number;
  quick?: boolean;
  check_correctness?: boolean;
  inputs?: string;
}
/**
 * One compile, by compile id and attempt (tlparse's ``[0/1_2]``), as Dynamo, AOTAutograd and Inductor logged it: where it started, its metrics, every artifact in the order logged, its cache lookups with their keys, its symbolic-shape decisions and its provenance.  A compile whose analysis Dynamo restarted has one record per attempt; the attempts before the last are ``dropped`` (their graphs never ran).
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "CompileRecord".
 */
export interface CompileRecord {
  variant: string;
  /**
   * "0/1"; "" for what the trace logged outside any compile
   */
  compile_id: string;
  attempt?: number;
  status?: 'ok' | 'restarted' | 'empty' | 'failed' | 'missing' | 'dropped';
  /**
   * why Dynamo restarted this attempt (a dropped one), in its first line
   */
  restart_reason?: string;
  stack?: CompileFrame[];
  metrics?: CompileMetrics | null;
  artifacts?: Artifact[];
  cache_lookups?: CacheLookup[];
  shape_facts?: ShapeFact[];
  provenance?: Provenance[];
  /**
   * the collective ops its graphs run, in order
   */
  collectives?: string[];
  tensor_meta?: string[];
  execution_order?: string[];
  /**
   * its first span's start (epoch seconds, as ``CompileSpan``)
   */
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
  /**
   * the cell (or the imported trace's script) line it is, where it is one
   */
  cell_line?: number | null;
}
/**
 * What Dynamo's ``compilation_metrics`` (and a lazily compiled backward's ``bwd_compilation_metrics``) logged for one compile: the figures tlparse's compile page shows.  None where the release or the compile logged none.
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
  /**
   * bwd_compilation_metrics: a backward compiled at its first call
   */
  backward_inductor_s?: number | null;
  remote_cache_saved_s?: number | null;
  /**
   * entries this frame's cache held before the compile
   */
  cache_size?: number | null;
  accumulated_cache_size?: number | null;
  guard_count?: number | null;
  shape_env_guard_count?: number | null;
  graph_op_count?: number | null;
  graph_node_count?: number | null;
  graph_input_count?: number | null;
  compliant_custom_ops?: string[];
  non_compliant_ops?: string[];
  /**
   * each in its first line
   */
  restart_reasons?: string[];
  fail_type?: string;
  fail_reason?: string;
  fail_file?: string;
  fail_line?: number | null;
}
/**
 * One intermediate product a compile logged (``TORCH_TRACE``'s payloads, what tlparse lists per compile id): a graph, the whole Inductor output module, the runtime wrapper, ``fx_graph_runnable``, bytecode, a cache lookup's key components.  A reference: its text is stored once by its SHA-256 (``ProfileRun.artifact_texts`` until the run is saved; then the run store's ``artifacts`` table, compressed and shared by every run and rank that logged the same text), so a run's JSON carries no artifact's body.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "Artifact".
 */
export interface Artifact {
  /**
   * torch's name for it: "dynamo_output_graph", "inductor_output_code", "before_pre_grad_graph", ...
   */
  name: string;
  sha256: string;
  /**
   * of its text as stored, UTF-8
   */
  bytes: number;
  lines: number;
  language?: 'python' | 'cpp' | 'json' | 'text';
  /**
   * longer than ``TraceLimits.artifact_bytes``: stored up to the last line within it
   */
  cut?: boolean;
}
/**
 * A symbolic-shape decision of one compile (tlparse's compile page): a ``specialization`` (a dynamic size fixed to a value), a ``guard_added_fast`` (a guard on sizes) or a created ``symbol``, with the user frame behind it.
 *
 * This interface was referenced by `ProfileRun`'s JSON-Schema
 * via the `definition` "ShapeFact".
 */
export interface ShapeFact {
  kind: 'specialization' | 'guard' | 'symbol';
  /**
   * the symbol ("s77") or the guard's expression ("8*s77 <= 4096")
   */
  text: string;
  /**
   * what the symbol stands for ("L['x'].size()[0]")
   */
  sources?: string[];
  /**
   * what it was specialized to, or a created symbol's hint
   */
  value?: string;
  /**
   * the innermost user frame, where the trace names one
   */
  frame?: CompileFrame | null;
}
/**
 * How one Inductor output module came from the user's code: its pre-grad graph, post-grad graph and output code (the ``Artifact``s by SHA-256, "" where not logged) and their nodes, linked by Inductor's own node mappings (``mapped``: provenance tracking on, as a profile turns it on and ``INDUCTOR_PROVENANCE=1`` does), else by the graphs' ``# File:`` comments and the output code's ``Source Nodes`` comments.
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
  /**
   * what the module computes, as its ``AOT ID`` says: "forward", "backward", "inference"; "" unsaid
   */
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
  /**
   * the FX node's name; in the output code a kernel's call as Inductor names it ("cpp_fused_relu_0:2")
   */
  name: string;
  /**
   * its lines in the stage's artifact, from 1 (a kernel's calls)
   */
  lines?: number[];
  /**
   * a kernel's source: its first and last line; [] else
   */
  definition?: number[];
  /**
   * the cell (script) line it came from, where its frame is one
   */
  line?: number | null;
  /**
   * the frame it came from when it is not the cell's (a library's), "" when none is named
   */
  file?: string;
  file_line?: number | null;
  /**
   * the nodes of later stages it became, by name
   */
  to?: string[];
}
