/** The run list's ordering and filtering, kept apart from the widgets so it is testable. */

import { distributedOf } from './job';
import { IRunSummary, RUN_MIME_TYPE } from './types';
import { verdictBadge } from './verdict';

/** Newest first by created_at; ties (same second) keep a stable order by id. */
export function newestFirst(runs: IRunSummary[]): IRunSummary[] {
  return [...runs].sort((a, b) => {
    const byTime = Date.parse(b.created_at) - Date.parse(a.created_at);
    return byTime !== 0 ? byTime : a.id.localeCompare(b.id);
  });
}

/**
 * Runs of one notebook, or all runs when `notebook` is null: those recorded under its path, and
 * those whose cards it shows. The kernel records the path it was started with, so after a rename
 * the cards are what still ties a run to its notebook.
 */
export function filterByNotebook(
  runs: IRunSummary[],
  notebook: string | null,
  shownRunIds: ReadonlySet<string> = new Set()
): IRunSummary[] {
  if (!notebook) {
    return runs;
  }
  return runs.filter(r => samePath(r.notebook, notebook) || shownRunIds.has(r.id));
}

/** What `runIdsShownIn` reads of a notebook's cells (a notebook model's cells fit it). */
export interface ICellOutputsLike {
  type: string;
  outputs?: { length: number; get(index: number): { data: Record<string, unknown> } };
}

/** The ids of the runs whose cards a notebook's outputs show. */
export function runIdsShownIn(cells: Iterable<ICellOutputsLike>): Set<string> {
  const ids = new Set<string>();
  for (const cell of cells) {
    if (cell.type !== 'code' || !cell.outputs) {
      continue;
    }
    for (let i = 0; i < cell.outputs.length; i++) {
      const data = cell.outputs.get(i).data[RUN_MIME_TYPE] as { run_id?: unknown } | undefined;
      if (data && typeof data.run_id === 'string') {
        ids.add(data.run_id);
      }
    }
  }
  return ids;
}

/**
 * The kernel reports the notebook path it was told (relative to the server root, or absolute
 * from $JPY_SESSION_NAME); compare them on their tail so both forms match.
 */
export function samePath(runNotebook: string, current: string): boolean {
  if (!runNotebook || !current) {
    return false;
  }
  const a = normalize(runNotebook);
  const b = normalize(current);
  return a === b || a.endsWith('/' + b) || b.endsWith('/' + a);
}

function normalize(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
}

/** The run's state as every list words it (digest `list_status`: "ok", "results differ", "error, results differ"). */
export function runStatus(run: Pick<IRunSummary, 'status' | 'list_status'>): string {
  return run.list_status ?? run.status;
}

type ListedRun = Pick<IRunSummary, 'status' | 'list_status' | 'speedup'> &
  Partial<Pick<IRunSummary, 'outcome'>>;

/**
 * The badge of a run in the list: the digest's verdict (verdict.ts: "results differ", "ran eagerly", else the
 * speedup, "1.25× faster"), as the card's badge reads; an older summary's speedup, or its state where it has none.
 */
export function runBadge(run: ListedRun): string {
  return verdictBadge(run);
}

/**
 * What the list says beside a run's badge: the parts of its state (digest `list_status`: "interrupted, results
 * differ", "partly eager") that the badge does not say and are not "ok"; null where the badge says them all.
 */
export function runFlag(run: ListedRun): string | null {
  const badge = runBadge(run);
  const parts = runStatus(run)
    .split(', ')
    .filter(part => part && part !== 'ok' && !badge.includes(part));
  return parts.length ? parts.join(', ') : null;
}

/**
 * Why a listed run cannot be read (its stored JSON is not a run's: the store lists it with its id and the
 * reason, digest/summary.py unreadable_summary), or null for a run that can be.
 */
export function unreadableReason(run: Pick<IRunSummary, 'unreadable'>): string | null {
  return typeof run.unreadable === 'string' && run.unreadable ? run.unreadable : null;
}

/** The runs that can be opened and compared (an unreadable one's detail is the server's 422). */
export function readableRuns(runs: IRunSummary[]): IRunSummary[] {
  return runs.filter(r => unreadableReason(r) === null);
}

/** What the list shows for a run: its label, else its first code line, else its id. */
export function runTitle(run: Pick<IRunSummary, 'label' | 'first_line' | 'id'>): string {
  return run.label || run.first_line || run.id;
}

/** One row of the run list: a run on its own, or the runs of one distributed job under one row. */
export type RunListEntry =
  | { kind: 'run'; run: IRunSummary }
  | {
      kind: 'job';
      jobId: string;
      worldSize: number;
      backend: string;
      runs: { rank: number; run: IRunSummary }[];
    };

/**
 * The list's rows: the runs of a distributed job (issue 14: one profile call on every rank) under
 * one job row, where its newest run would stand, its ranks in rank order; other runs stay as they
 * are, in the order given.
 */
export function groupJobs(runs: IRunSummary[]): RunListEntry[] {
  const entries: RunListEntry[] = [];
  const jobs = new Map<string, Extract<RunListEntry, { kind: 'job' }>>();
  for (const run of runs) {
    const d = distributedOf(run);
    if (!d) {
      entries.push({ kind: 'run', run });
      continue;
    }
    let job = jobs.get(d.job_id);
    if (!job) {
      job = { kind: 'job', jobId: d.job_id, worldSize: d.world_size, backend: d.backend, runs: [] };
      jobs.set(d.job_id, job);
      entries.push(job);
    }
    job.runs.push({ rank: d.rank, run });
  }
  for (const job of jobs.values()) {
    job.runs.sort((a, b) => a.rank - b.rank || a.run.id.localeCompare(b.run.id));
  }
  return entries;
}

/** A job row's words: "job 3f2a9c · 2 ranks (gloo)", "job 3f2a9c · 1 of 2 ranks (nccl)" while ranks are missing. */
export function jobTitle(job: {
  jobId: string;
  worldSize: number;
  backend: string;
  runs: unknown[];
}): string {
  const ranks =
    job.runs.length === job.worldSize ? `${job.worldSize}` : `${job.runs.length} of ${job.worldSize}`;
  return `job ${job.jobId} · ${ranks} rank${job.worldSize === 1 ? '' : 's'}${job.backend ? ` (${job.backend})` : ''}`;
}
