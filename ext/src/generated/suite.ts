/* Generated from kernel_side/compile_profile/schema/suite.schema.json by ext/scripts/contract-types.mjs (make contract): do not edit. */

export type SuiteJson = SuitePage | SuitesPage | SuiteComparison | SuiteExport | SuiteRecord;

/**
 * GET suites/<id>: the digest and its figures (``suites.charts``), as the panel reads them.
 */
export interface SuitePage {
  suite: SuiteDigest;
  figures?: {
    [k: string]: unknown;
  };
}
/**
 * A suite as every view shows it (``suite_digest``).
 */
export interface SuiteDigest {
  id: string;
  label: string;
  /**
   * "builtin · 14 entries"
   */
  title: string;
  /**
   * "2026-07-05 01:23 UTC"
   */
  created_text: string;
  collection: string;
  headline: string;
  /**
   * "inference, float32 · backend inductor · --quick · limit 600 s per entry"
   */
  settings_text: string;
  /**
   * "torch 2.11.0+cu130 on cuda (NVIDIA H100 80GB HBM3), host h, 16 cores"
   */
  where_text: string;
  environment: SuiteEnvironment;
  complete: boolean;
  /**
   * entries with no outcome yet
   */
  pending: string[];
  /**
   * "3 of 14 entries not run yet: ..."; "" when complete
   */
  pending_text: string;
  summary: SuiteSummary;
  status_counts: StatusCount[];
  /**
   * in the collection's order
   */
  rows: SuiteRow[];
  /**
   * the dashboard's flags, "name: reason", slowest first
   */
  flags: string[];
  notes: string[];
}
/**
 * Where a suite ran, as far as a speedup depends on it: two suites' figures compare as code against code only where these are equal (``compare.compare_suites`` says which differ).  On GPUs the host's CPU counts too: BERT base's bf16 inference read 1.15×, 1.68× and 1.17× in suites on three H100 hosts, its eager step waiting on the host's launches (docs/benchmarks.md, 2026-12-05).
 */
export interface SuiteEnvironment {
  torch: string;
  /**
   * "cpu", "cuda"
   */
  device: string;
  /**
   * the GPU's name, or the CPU's model on CPU; "" where the suite did not record it
   */
  device_name: string;
  /**
   * the host's CPU model; ""
   */
  cpu: string;
  /**
   * the host's logical CPUs; 0 where not recorded
   */
  cores: number;
  host: string;
  /**
   * ``settings_text``: the tasks, dtypes, backend and options
   */
  settings: string;
  threads?: string;
}
/**
 * The suite's figures: pass rate, geomean speedup over the passing entries, median compile, compression.
 */
export interface SuiteSummary {
  /**
   * in the collection, over every shard
   */
  entries: number;
  /**
   * with an outcome
   */
  ended: number;
  /**
   * ended, less the skipped: what the pass rate is of
   */
  counted: number;
  passed: number;
  pass_rate: number | null;
  /**
   * "4 of 5 entries pass (80%)"
   */
  pass_rate_text: string;
  geomean_speedup: number | null;
  geomean_low: number | null;
  geomean_high: number | null;
  /**
   * "compiled is 1.32× faster [1.20×–1.45×] (geometric mean over the 4 that pass)"
   */
  geomean_text: string;
  median_compile_s: number | null;
  median_compile_text: string;
  /**
   * geometric mean of peak eager / peak compiled over the passing entries measured
   */
  compression: number | null;
  compression_text: string;
}
export interface StatusCount {
  status: string;
  label: string;
  count: number;
  colour: string;
}
/**
 * One entry of the suite, as every view shows it.
 */
export interface SuiteRow {
  name: string;
  model: string;
  task: string;
  dtype: string;
  /**
   * a key of STATUSES
   */
  status: string;
  /**
   * "pass", "compile failed", "timed out"
   */
  status_label: string;
  /**
   * why: the card's verdict sentence, or how the process ended
   */
  status_text: string;
  tone: string;
  colour: string;
  run_id: string | null;
  speedup: number | null;
  speedup_low: number | null;
  speedup_high: number | null;
  /**
   * "1.32× faster [1.20×–1.45×]"; beneath a status that overrides it, "(not meaningful)"
   */
  speedup_text: string;
  speedup_meaningful: boolean;
  speedup_caveat: string;
  compile_s: number | null;
  /**
   * "12.3 s, cold cache"; "—"
   */
  compile_text: string;
  cache_state: string;
  graph_breaks: number | null;
  /**
   * "3: 1 yours, 2 PyTorch's own"; "none"; "—"
   */
  graph_break_text: string;
  recompiles: number | null;
  recompile_text: string;
  peak_eager_bytes: number | null;
  peak_compiled_bytes: number | null;
  /**
   * peak eager / peak compiled
   */
  compression: number | null;
  /**
   * "1.2 GiB → 0.9 GiB (1.33× less)"; "not measured on CPU"
   */
  memory_text: string;
  /**
   * the diagnosis' first cause, in its words; "" where none
   */
  top_cause: string;
  /**
   * how long its process took
   */
  wall_text: string;
  /**
   * the dashboard's flags that this entry raises, in words
   */
  flags: string[];
  /**
   * compiled samples behind the speedup
   */
  samples: number;
}
/**
 * GET suites: the stored suites, newest first.
 */
export interface SuitesPage {
  suites: SuiteListRow[];
}
/**
 * A stored suite as the panel's list and ``compile-profile suite --list`` show it.
 */
export interface SuiteListRow {
  id: string;
  title: string;
  label: string;
  created_text: string;
  headline: string;
  complete: boolean;
  /**
   * "14 of 14 entries"
   */
  progress_text: string;
  /**
   * why a stored suite cannot be read ("" when it can): its row names its id and this
   */
  unreadable?: string;
}
/**
 * OLD against NEW (``compare_suites``).
 */
export interface SuiteComparison {
  /**
   * what each side is: a suite id, or a file
   */
  old: string;
  new: string;
  headline: string;
  geomean_ratio: number | null;
  geomean_text: string;
  rows: ComparisonRow[];
  /**
   * "name: why", status changes first
   */
  regressions: string[];
  /**
   * "name: speedup new/old 0.49×, not judged: the new suite's speedup is not meaningful (…)"
   */
  unjudged: string[];
  /**
   * what --fail-on-regression exits non-zero for
   */
  failed: boolean;
  /**
   * the share a speedup must fall by, beyond both intervals, to be a regression
   */
  threshold: number;
  gate_text: string;
  /**
   * "torch: 2.11.0 then, 2.12.0 now", one for each part of the setup that differs
   */
  setup_differences: string[];
  /**
   * what those differences mean for the ratios; "" where both ran alike or one side does not say
   */
  setup_text: string;
}
/**
 * One entry, then and now.
 */
export interface ComparisonRow {
  name: string;
  /**
   * "" where the entry was not in that suite
   */
  old_status: string;
  new_status: string;
  /**
   * "pass → compile failed"; "pass"
   */
  status_text: string;
  status_changed: boolean;
  stopped_passing: boolean;
  old_speedup_text: string;
  new_speedup_text: string;
  /**
   * new speedup / old speedup
   */
  ratio: number | null;
  ratio_low: number | null;
  ratio_high: number | null;
  /**
   * "0.82× [0.75×–0.90×]"
   */
  ratio_text: string;
  /**
   * new compile time / old; None where their caches differ
   */
  compile_ratio: number | null;
  /**
   * "12.3 s (cold cache) → 15.0 s (cold cache) (1.22×)"
   */
  compile_text: string;
  /**
   * why the ratio is shown but not judged: "the new suite's speedup is not meaningful (busy CPU)"
   */
  unjudged: string;
  /**
   * beyond both intervals and down by more than the threshold
   */
  regressed: boolean;
  /**
   * beyond both intervals and up by more than the threshold
   */
  improved: boolean;
  /**
   * beyond both intervals, but by less than the threshold: not gated
   */
  within_threshold: boolean;
  /**
   * the row in one sentence
   */
  text: string;
}
/**
 * ``compile-profile suite --json OUT``: a suite's figures for scripts, and a baseline ``suite-compare`` reads.
 */
export interface SuiteExport {
  models: ExportModel[];
  summary: ExportSummary;
  /**
   * absent from files written before 2026-12-05
   */
  environment?: SuiteEnvironment | null;
}
/**
 * One entry in ``--json OUT`` (these names, so scripts can read it).
 */
export interface ExportModel {
  name: string;
  status: string;
  speedup: number | null;
  speedup_low: number | null;
  speedup_high: number | null;
  compile_s: number | null;
  graph_breaks: number | null;
  recompiles: number | null;
  peak_eager_bytes: number | null;
  peak_compiled_bytes: number | null;
  top_cause: string;
  run_id: string | null;
  speedup_caveat?: string;
  compile_cache?: string;
}
export interface ExportSummary {
  pass_rate: number | null;
  geomean_speedup: number | null;
  geomean_low: number | null;
  geomean_high: number | null;
  median_compile_s: number | null;
}
/**
 * One suite: its settings, where it ran, and each entry's outcome so far (in the order they ended).
 */
export interface SuiteRecord {
  id: string;
  created_at: string;
  settings: SuiteSettings;
  torch_version: string;
  /**
   * "cpu", "cuda": where the children ran
   */
  device: string;
  host: string;
  label?: string;
  /**
   * "NVIDIA H100 80GB HBM3"; the CPU's model on CPU ("" in suites stored before 2026-12-05)
   */
  device_name?: string;
  /**
   * the host's CPU model, as /proc/cpuinfo names it
   */
  cpu?: string;
  /**
   * the host's logical CPUs (os.cpu_count)
   */
  cores?: number;
  outcomes?: ModelOutcome[];
}
/**
 * What a suite profiles and how: the same for every entry and every shard of one suite.
 */
export interface SuiteSettings {
  /**
   * as given: a file's path, or "builtin"
   */
  collection: string;
  /**
   * its file name, or "builtin"
   */
  collection_name: string;
  /**
   * the file's content: a suite continues only over the same collection
   */
  collection_sha256: string;
  /**
   * every entry of the collection, in its order (all shards')
   */
  entries: string[];
  /**
   * "inference", "training"
   */
  tasks: string[];
  /**
   * "float32", "bfloat16" (autocast)
   */
  dtypes: string[];
  /**
   * compile_profile.profile's keywords for every entry (backend, mode, quick, ...)
   */
  profile_options: {
    [k: string]: unknown;
  };
  /**
   * the per-model limit
   */
  timeout_s: number;
  /**
   * N of --shard I/N
   */
  shards?: number;
  /**
   * the built-in collection's sizes: "small" (CPU) or "real" (GPU)
   */
  size?: string;
}
/**
 * How one entry's process ended, and the run it stored.
 */
export interface ModelOutcome {
  /**
   * the entry: "gpt2", "gpt2 (training)", "gpt2 (bfloat16)"
   */
  name: string;
  /**
   * the collection's key
   */
  model: string;
  /**
   * "inference", "training", or "step" (a builder that takes no train argument: its step as built)
   */
  task: string;
  dtype: string;
  ended: 'finished' | 'timeout' | 'crashed' | 'oom' | 'error' | 'skipped';
  /**
   * the ProfileRun it stored; None where it stored none
   */
  run_id?: string | null;
  /**
   * the process's wall time, start to end
   */
  wall_s?: number;
  /**
   * None: killed by us at the time limit
   */
  exit_code?: number | null;
  /**
   * "SIGSEGV" where a signal ended it
   */
  signal?: string;
  /**
   * the exception's message, or what ended it, in its own words
   */
  error?: string;
  stage?: string;
  /**
   * the last lines the process wrote to stderr
   */
  stderr_tail?: string[];
  /**
   * I of --shard I/N
   */
  shard?: number;
  /**
   * ISO time
   */
  finished_at?: string;
}
