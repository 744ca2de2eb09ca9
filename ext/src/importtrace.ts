/**
 * The run list's "Import TORCH_TRACE…": what the user typed made into the request, the server's answer checked,
 * and the words the panel shows for either outcome (kept apart from the widgets so they are testable).  The
 * import itself is the server's (POST runs/import-trace, what `compile-profile import-trace` does).
 */

import { ApiError, IImportTraceResult } from './api';

export const IMPORT_TRACE_HELP =
  'A TORCH_TRACE directory on the server (the DIR of TORCH_TRACE=DIR python train.py) or one of its .log or ' +
  ".log.gz files; a relative path is under the server's root, where the file browser starts.";

/** The path to send, trimmed, or what to fix when there is none. */
export function traceImportPath(typed: string | null | undefined): { path: string } | { error: string } {
  const path = (typed ?? '').trim();
  if (!path) {
    return {
      error:
        'Give the path of a TORCH_TRACE directory or log on the server, e.g. /tmp/trace (the DIR of TORCH_TRACE=DIR).'
    };
  }
  return { path };
}

/** The server's answer, checked: a list of run ids (at least one) and of job ids. */
export function parseImportResult(body: unknown): IImportTraceResult {
  const b = body as Partial<IImportTraceResult> | null;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every(x => typeof x === 'string');
  if (!b || typeof b !== 'object' || !strings(b.ids) || !strings(b.job_ids) || !b.ids.length) {
    throw new Error(`the server's answer to the import is not a list of run ids: ${JSON.stringify(body)}`);
  }
  return { ids: b.ids, job_ids: b.job_ids };
}

/** What the panel says after an import: how many runs, and from where. */
export function importedText(path: string, result: IImportTraceResult): string {
  const n = result.ids.length;
  const runs = `${n} run${n === 1 ? '' : 's'}`;
  const jobs = result.job_ids.length
    ? ` (${result.job_ids.length === 1 ? 'one job' : `${result.job_ids.length} jobs`} of ranks)`
    : '';
  return `Imported ${runs}${jobs} from ${path}: no timings, as a trace has none.`;
}

/**
 * What the panel says when the import failed: the server's reason, which names the path it read (a relative one
 * made absolute) and what to fix, without a 400's status.
 */
export function importFailedText(error: unknown): string {
  let reason = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError && error.status === 400) {
    reason = reason.replace(/^400: /, '');
  }
  return `Import TORCH_TRACE failed: ${reason}`;
}
