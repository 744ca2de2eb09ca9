/**
 * A distributed job as the panel reads it (issue 14): one profile call on every rank of a torchrun
 * job, its runs sharing a job id.  The server sends the job's digest (digest/job.py job_digest) and
 * each run's summary carries its rank.  Pure: the digest derives every figure and sentence, the views
 * lay them out.
 */

import { IDistributedSummary, IJobDigest, IJobDivergence, IJobPage, IJobRow, IRunSummary } from './types';

/**
 * The job as this release's server sends it (GET jobs/<id>), derived from the stored runs when it is fetched:
 * every key is present, those an older saved digest may lack too (digest/contract.py), so the generated types
 * hold with every key required and nothing is checked here.
 */
export type IJobRank = Required<IJobRow>;

export interface IJob extends Required<Omit<IJobDigest, 'rows'>> {
  rows: IJobRank[];
}

export interface IJobTab extends IJobPage {
  job: IJob;
}

/** A rank: a whole number from 0. */
function rank(value: number): boolean {
  return Number.isInteger(value) && value >= 0;
}

/**
 * A run's place in a job, or null: a single-process run, or one whose place names no job (a run file made by
 * hand or by another program may hold a negative rank or an empty job id: it is then no job's).
 */
export function distributedOf(run: Pick<IRunSummary, 'distributed'>): IDistributedSummary | null {
  const d = run.distributed;
  if (!d || !d.job_id || !rank(d.rank) || !rank(d.world_size) || d.world_size < 1) {
    return null;
  }
  return { rank: d.rank, world_size: d.world_size, job_id: d.job_id, backend: d.backend };
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
