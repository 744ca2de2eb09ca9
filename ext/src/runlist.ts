/** The run list's ordering and filtering, kept apart from the widgets so it is testable. */

import { IRunSummary } from './types';

/** Newest first by created_at; ties (same second) keep a stable order by id. */
export function newestFirst(runs: IRunSummary[]): IRunSummary[] {
  return [...runs].sort((a, b) => {
    const byTime = Date.parse(b.created_at) - Date.parse(a.created_at);
    return byTime !== 0 ? byTime : a.id.localeCompare(b.id);
  });
}

/** Runs of one notebook (by its server path), or all runs when `notebook` is null. */
export function filterByNotebook(runs: IRunSummary[], notebook: string | null): IRunSummary[] {
  if (!notebook) {
    return runs;
  }
  return runs.filter(r => samePath(r.notebook, notebook));
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

/** What the list shows for a run: its label, else its first code line, else its id. */
export function runTitle(run: Pick<IRunSummary, 'label' | 'first_line' | 'id'>): string {
  return run.label || run.first_line || run.id;
}
