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
  title: string;
  created_text: string;
  collection: string;
  headline: string;
  settings_text: string;
  where_text: string;
  complete: boolean;
  pending: string[];
  pending_text: string;
  summary: SuiteSummary;
  status_counts: StatusCount[];
  rows: SuiteRow[];
  flags: string[];
  notes: string[];
}
/**
 * The suite's figures: pass rate, geomean speedup over the passing entries, median compile, compression.
 */
export interface SuiteSummary {
  entries: number;
  ended: number;
  counted: number;
  passed: number;
  pass_rate: number | null;
  pass_rate_text: string;
  geomean_speedup: number | null;
  geomean_low: number | null;
  geomean_high: number | null;
  geomean_text: string;
  median_compile_s: number | null;
  median_compile_text: string;
  compression: number | null;
  compression_text: string;
}
/**
 * StatusCount(status: 'str', label: 'str', count: 'int', colour: 'str')
 */
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
  status: string;
  status_label: string;
  status_text: string;
  tone: string;
  colour: string;
  run_id: string | null;
  speedup: number | null;
  speedup_low: number | null;
  speedup_high: number | null;
  speedup_text: string;
  speedup_meaningful: boolean;
  compile_s: number | null;
  compile_text: string;
  cache_state: string;
  graph_breaks: number | null;
  graph_break_text: string;
  recompiles: number | null;
  recompile_text: string;
  peak_eager_bytes: number | null;
  peak_compiled_bytes: number | null;
  compression: number | null;
  memory_text: string;
  top_cause: string;
  wall_text: string;
  flags: string[];
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
  progress_text: string;
}
/**
 * OLD against NEW (``compare_suites``).
 */
export interface SuiteComparison {
  old: string;
  new: string;
  headline: string;
  geomean_ratio: number | null;
  geomean_text: string;
  rows: ComparisonRow[];
  regressions: string[];
  failed: boolean;
  gate_text: string;
}
/**
 * One entry, then and now.
 */
export interface ComparisonRow {
  name: string;
  old_status: string;
  new_status: string;
  status_text: string;
  status_changed: boolean;
  stopped_passing: boolean;
  old_speedup_text: string;
  new_speedup_text: string;
  ratio: number | null;
  ratio_low: number | null;
  ratio_high: number | null;
  ratio_text: string;
  compile_ratio: number | null;
  compile_text: string;
  regressed: boolean;
  improved: boolean;
  text: string;
}
/**
 * ``compile-profile suite --json OUT``: a suite's figures for scripts, and a baseline ``suite-compare`` reads.
 */
export interface SuiteExport {
  models: ExportModel[];
  summary: ExportSummary;
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
}
/**
 * ExportSummary(pass_rate: 'float | None', geomean_speedup: 'float | None', geomean_low: 'float | None', geomean_high: 'float | None', median_compile_s: 'float | None')
 */
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
  device: string;
  host: string;
  label?: string;
  outcomes?: ModelOutcome[];
}
/**
 * What a suite profiles and how: the same for every entry and every shard of one suite.
 */
export interface SuiteSettings {
  collection: string;
  collection_name: string;
  collection_sha256: string;
  entries: string[];
  tasks: string[];
  dtypes: string[];
  profile_options: {
    [k: string]: unknown;
  };
  timeout_s: number;
  shards?: number;
  size?: string;
}
/**
 * How one entry's process ended, and the run it stored.
 */
export interface ModelOutcome {
  name: string;
  model: string;
  task: string;
  dtype: string;
  ended: 'finished' | 'timeout' | 'crashed' | 'oom' | 'error' | 'skipped';
  run_id?: string | null;
  wall_s?: number;
  exit_code?: number | null;
  signal?: string;
  error?: string;
  stderr_tail?: string[];
  shard?: number;
  finished_at?: string;
}
