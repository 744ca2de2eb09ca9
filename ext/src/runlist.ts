/** The run list's ordering and filtering, kept apart from the widgets so it is testable. */

import { IRunSummary, RUN_MIME_TYPE } from './types';

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

/** What the list shows for a run: its label, else its first code line, else its id. */
export function runTitle(run: Pick<IRunSummary, 'label' | 'first_line' | 'id'>): string {
  return run.label || run.first_line || run.id;
}
