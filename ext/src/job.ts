/**
 * A distributed job as the panel reads it (issue 14): one profile call on every rank of a torchrun
 * job, its runs sharing a job id.  The server sends the job's digest (digest/job.py job_digest) and
 * each run's summary carries its rank; this module checks what arrived and drops what is malformed,
 * as the other readers of the digest do (guards.ts, measured.ts).  Pure: the digest derives every
 * figure and sentence, the views lay them out.
 */

import {
  ICompileSpread,
  IDistributedSummary,
  IJobDigest,
  IJobDivergence,
  IJobPage,
  IJobRow,
  IRunSummary
} from './types';
import { asNumber, count, isRecord, text } from './json';

/** A rank's row with what the digest adds beside its figures; every field is text ("" when the digest sent none). */
export interface IJobRank extends IJobRow {
  /** this rank's eager and compiled medians ("9.43 ms", "failed", "—") */
  eager_text: string;
  compiled_text: string;
  /** the run digest's correctness sentence */
  correctness_text: string;
  /** the run's first error, "stage: message" */
  error_text: string;
  /** what the rank's figures include but it did not cause (waiting for a diverging rank) */
  notes: string[];
}

/** The job's digest with its rows' added fields and the notes under the table. */
export interface IJob extends IJobDigest {
  rows: IJobRank[];
  /** why the peak memory column reads "not measured", said once */
  peak_memory_note: string;
  /** the order DDP all-reduces the pieces the DDP buckets column counts */
  ddp_note: string;
}

export interface IJobTab extends IJobPage {
  job: IJob;
}

/** A rank: a whole number from 0. */
function rank(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function ranks(value: unknown): number[] {
  return Array.isArray(value) ? value.map(rank).filter((r): r is number => r !== null) : [];
}

function texts(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((t): t is string => typeof t === 'string' && t.trim() !== '')
    : [];
}

/** A run's place in a job, or null: a single-process run, an older run, or a malformed entry. */
export function distributedOf(run: Pick<IRunSummary, 'distributed'>): IDistributedSummary | null {
  const d: unknown = run.distributed;
  if (!isRecord(d) || typeof d.job_id !== 'string' || !d.job_id) {
    return null;
  }
  const r = rank(d.rank);
  const worldSize = rank(d.world_size);
  if (r === null || worldSize === null || worldSize < 1) {
    return null;
  }
  return { rank: r, world_size: worldSize, job_id: d.job_id, backend: text(d.backend) };
}

function jobRow(r: Record<string, unknown>): IJobRank | null {
  const n = rank(r.rank);
  if (n === null || typeof r.run_id !== 'string') {
    return null;
  }
  return {
    rank: n,
    run_id: r.run_id,
    host: text(r.host),
    status: text(r.status),
    speedup: asNumber(r.speedup),
    speedup_text: text(r.speedup_text),
    interval_text: text(r.interval_text),
    compile_s: asNumber(r.compile_s),
    compile_text: text(r.compile_text),
    graphs: count(r.graphs),
    ddp_buckets: count(r.ddp_buckets),
    breaks: count(r.breaks),
    recompiles: count(r.recompiles),
    cache_hits: count(r.cache_hits),
    cache_misses: count(r.cache_misses),
    peak_memory_bytes: asNumber(r.peak_memory_bytes),
    peak_memory_text: text(r.peak_memory_text),
    collective_share: asNumber(r.collective_share),
    collective_text: text(r.collective_text),
    cell_runs: count(r.cell_runs),
    eager_text: text(r.eager_text),
    compiled_text: text(r.compiled_text),
    correctness_text: text(r.correctness_text),
    error_text: text(r.error_text),
    divergent: r.divergent === true,
    reasons: texts(r.reasons),
    notes: texts(r.notes)
  };
}

function compileSpread(value: unknown): ICompileSpread {
  const s = isRecord(value) ? value : {};
  return {
    min_s: asNumber(s.min_s),
    median_s: asNumber(s.median_s),
    max_s: asNumber(s.max_s),
    text: text(s.text)
  };
}

function divergence(d: Record<string, unknown>): IJobDivergence | null {
  const n = rank(d.rank);
  return n === null || !text(d.text) ? null : { rank: n, what: text(d.what), text: text(d.text) };
}

/** The job's digest as the server sent it, malformed rows dropped; throws when it is not a job at all. */
export function parseJobDigest(value: unknown): IJob {
  if (!isRecord(value) || typeof value.job_id !== 'string' || !value.job_id || !Array.isArray(value.rows)) {
    throw new Error('the server sent no job digest');
  }
  return {
    job_id: value.job_id,
    world_size: count(value.world_size),
    backend: text(value.backend),
    torchrun_id: text(value.torchrun_id),
    ranks: ranks(value.ranks),
    missing_ranks: ranks(value.missing_ranks),
    headline: text(value.headline),
    compile_spread: compileSpread(value.compile_spread),
    rows: records(value.rows)
      .map(jobRow)
      .filter((r): r is IJobRank => r !== null),
    divergences: records(value.divergences)
      .map(divergence)
      .filter((d): d is IJobDivergence => d !== null),
    peak_memory_note: text(value.peak_memory_note),
    ddp_note: text(value.ddp_note)
  };
}

/** GET jobs/<id>'s answer: the digest and the runs' summaries (entries without an id dropped). */
export function parseJobPage(value: unknown): IJobTab {
  if (!isRecord(value)) {
    throw new Error('the server sent no job');
  }
  return {
    job: parseJobDigest(value.job),
    runs: records(value.runs).filter(r => typeof r.id === 'string') as unknown as IRunSummary[]
  };
}

/** A rank of the world size with no run, and the digest's sentence for it ("" when it has none). */
export interface IMissingRank {
  rank: number;
  text: string;
}

/** The ranks with no run, each with the digest's "missing" sentence for it. */
export function missingRanks(job: IJobDigest): IMissingRank[] {
  return job.missing_ranks.map(rank => ({
    rank,
    text: job.divergences.find(d => d.rank === rank && d.what === 'missing')?.text ?? ''
  }));
}

/**
 * The divergences neither a rank row (among its reasons) nor the missing ranks show: the view lists
 * these below the table, so each of the digest's sentences shows once and none is lost.
 */
export function divergencesBesideRows(job: IJobDigest): IJobDivergence[] {
  return job.divergences.filter(
    d =>
      !job.rows.some(r => r.rank === d.rank && r.reasons.includes(d.text)) &&
      !(d.what === 'missing' && job.missing_ranks.includes(d.rank))
  );
}

/** The DOM id of a job's tab: the job id with anything outside [A-Za-z0-9_-] replaced. */
export function jobWidgetId(jobId: string): string {
  return `compile-profile-job-${jobId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
