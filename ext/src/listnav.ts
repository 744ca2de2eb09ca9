/**
 * The run list by keyboard, as WAI-ARIA's listbox pattern has it: the list is one Tab stop, on the row last
 * moved to (else the run whose tab is current, else the first); Up and Down move to the row before or after
 * (no wrapping), Home and End to the first and last; Enter or Space opens the row (a run's detail, a job's
 * view); Delete asks to delete the run, as its ✕ button does.  A distributed job's head and its ranks are rows
 * in the order shown.  Pure, so the keys are tested without a page (panel.tsx lays the rows out).
 */

import { RunListEntry } from './runlist';

/** What a key does on the row at `index` of `count` rows; null for a key the list leaves alone. */
export type ListKeyAction = { kind: 'move'; index: number } | { kind: 'open' } | { kind: 'delete' } | null;

export function listKeyAction(key: string, index: number, count: number): ListKeyAction {
  if (count <= 0) {
    return null;
  }
  const last = count - 1;
  const at = Math.min(Math.max(index, -1), last);
  switch (key) {
    case 'ArrowDown':
      return { kind: 'move', index: Math.min(at + 1, last) };
    case 'ArrowUp':
      return { kind: 'move', index: at < 0 ? last : Math.max(at - 1, 0) };
    case 'Home':
      return { kind: 'move', index: 0 };
    case 'End':
      return { kind: 'move', index: last };
    case 'Enter':
    case ' ':
      return at < 0 ? null : { kind: 'open' };
    case 'Delete':
      return at < 0 ? null : { kind: 'delete' };
    default:
      return null;
  }
}

/** A row's key: a run's or a job head's, unique in the list. */
export function runRowKey(runId: string): string {
  return `run:${runId}`;
}

export function jobRowKey(jobId: string): string {
  return `job:${jobId}`;
}

/** Every row's key in the order the list shows them: a job's head, then its ranks. */
export function rowKeys(entries: RunListEntry[]): string[] {
  return entries.flatMap(e =>
    e.kind === 'run' ? [runRowKey(e.run.id)] : [jobRowKey(e.jobId), ...e.runs.map(r => runRowKey(r.run.id))]
  );
}

/**
 * The row that holds the list's Tab stop: the one last moved to or clicked while it is still listed, else the
 * current one (the run or job whose tab is in front), else the first; null for an empty list.
 */
export function tabStopKey(keys: string[], active: string | null, current: string | null): string | null {
  for (const key of [active, current]) {
    if (key !== null && keys.includes(key)) {
      return key;
    }
  }
  return keys.length ? keys[0] : null;
}

/** The row to move to once the row `key` is deleted: the one after it, else the one before; null if none. */
export function neighbourKey(keys: string[], key: string): string | null {
  const at = keys.indexOf(key);
  if (at < 0) {
    return null;
  }
  return keys[at + 1] ?? keys[at - 1] ?? null;
}
