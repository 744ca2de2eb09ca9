/**
 * A run's tab whose run is no longer in the store: a tab the layout restorer reopened after the run was
 * deleted (from the panel, or with `compile-profile rm`), or a run id that no store here holds.  The server
 * answers 404; the tab says so in words, by the run's title where the tab remembers it, and offers to close.
 * Pure, so the words are tested without a page (detailwidget.tsx shows them).
 */

/** Whether a failed load means the run is not in the store (the server's 404), not that it could not be read. */
export function isMissingRun(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 404;
}

/** The tab's label for a run that is gone: its title where the tab kept it, else its id. */
export function missingRunLabel(runId: string, title: string | null | undefined): string {
  return `${title || runId} (deleted)`;
}

/** What the tab says in place of the run. */
export function missingRunText(runId: string, title: string | null | undefined): string {
  const named = title && title !== runId ? `"${title}" (run ${runId})` : `Run ${runId}`;
  return (
    `${named} is no longer in the run store: it was deleted from it (in the Compile Profile panel or with ` +
    'compile-profile rm) after this tab was opened, or this server now reads another store ($COMPILE_PROFILE_DB). ' +
    'There is nothing left to show in this tab.'
  );
}
