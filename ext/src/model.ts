/**
 * The sidebar panel's state: the run list from the store, which view (runs, compare or suites) it shows,
 * which run's main-area tab is current (highlighted in the list), and a cheap poll of the store's
 * change token so runs written by any kernel appear without a refresh.  A run's detail has a model
 * of its own (detailmodel.ts).
 */

import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import { importedText, importFailedText, parseImportResult, traceImportPath } from './importtrace';
import { filterByNotebook, newestFirst } from './runlist';
import { ISuiteListRow } from './suitetypes';
import { IRunSummary } from './types';

/** What the panel shows: the run list, the comparison of two runs, or the stored suites. */
export type PanelView = 'runs' | 'compare' | 'suites';

/** Summaries are small; the newest this many are listed, the count says if there are more. */
export const LIST_LIMIT = 500;
const POLL_MS = 2000;
/**
 * The list is read again at least this often though the store did not change: each run's age ("3 min ago") is
 * the server's, worded when it served the list (RunsPage.ages: the CLI's rule, digest/format.py age_text), so an
 * age shown is at most this stale (and at most 30 s more while the poll backs off).
 */
const AGES_MS = 60 * 1000;

export class PanelModel {
  constructor(
    private readonly _currentNotebook: () => string | null,
    private readonly _runIdsShown: () => ReadonlySet<string> = () => new Set()
  ) {
    this._poll = new Poll({
      factory: () => this._checkForChanges(),
      frequency: { interval: POLL_MS, backoff: true, max: 30 * 1000 },
      standby: 'when-hidden',
      name: 'compile-profile:changes'
    });
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** A run was deleted from the store through the panel. */
  get removed(): ISignal<this, string> {
    return this._removed;
  }

  runs: IRunSummary[] = [];
  /** run id -> how long ago it was profiled, as the server worded it when it served the list */
  ages: Record<string, string> = {};
  total = 0;
  error: string | null = null;
  thisNotebookOnly = false;
  /** The run whose main-area tab is current, highlighted in the list. */
  currentRunId: string | null = null;
  /** The job whose main-area tab is current, highlighted in the list. */
  currentJobId: string | null = null;
  view: PanelView = 'runs';
  /** The stored suites (the Suites view), read when that view is shown and when the store changes. */
  suites: ISuiteListRow[] = [];
  /** What the last Import TORCH_TRACE… came to, shown under the toolbar until the next one. */
  importNotice: { kind: 'ok' | 'error'; text: string } | null = null;
  importing = false;
  /** The path last asked for, offered again by the next import (a failed one's, to fix). */
  lastTracePath = '';

  get visibleRuns(): IRunSummary[] {
    return this.thisNotebookOnly
      ? filterByNotebook(this.runs, this._currentNotebook(), this._runIdsShown())
      : this.runs;
  }

  async refresh(): Promise<void> {
    try {
      if (this.view === 'suites') {
        this.suites = (await api.listSuites()).suites;
      }
      const page = await api.listRuns({ limit: LIST_LIMIT });
      this.runs = newestFirst(page.runs);
      this.ages = page.ages ?? {};
      this._listedAt = Date.now();
      this.total = page.total;
      this._token = page.token;
      this.error = null;
    } catch (error) {
      this.error = `Cannot read the run store: ${(error as Error).message}`;
    }
    this._changed.emit();
  }

  setCurrentRun(id: string | null): void {
    if (id !== this.currentRunId) {
      this.currentRunId = id;
      this._changed.emit();
    }
  }

  setCurrentJob(id: string | null): void {
    if (id !== this.currentJobId) {
      this.currentJobId = id;
      this._changed.emit();
    }
  }

  async remove(id: string): Promise<void> {
    await api.deleteRun(id);
    this._removed.emit(id);
    await this.refresh();
  }

  /** Remove a stored suite and the runs its entries stored; the Suites view and the run list refresh. */
  async removeSuite(id: string): Promise<void> {
    await api.deleteSuite(id);
    await this.refresh();
  }

  /**
   * Import the TORCH_TRACE at `typed` (a path on the server) into the store, as `compile-profile import-trace`
   * does; the list refreshes. Returns the first new run's id, or null when the import failed: then
   * `importNotice` says why and what to fix, and the store is as it was.
   */
  async importTrace(typed: string): Promise<string | null> {
    const checked = traceImportPath(typed);
    if ('error' in checked) {
      this.importNotice = { kind: 'error', text: checked.error };
      this._changed.emit();
      return null;
    }
    this.lastTracePath = checked.path;
    this.importing = true;
    this.importNotice = null;
    this._changed.emit();
    try {
      const result = parseImportResult(await api.importTrace(checked.path));
      this.importNotice = { kind: 'ok', text: importedText(checked.path, result) };
      await this.refresh();
      return result.ids[0];
    } catch (error) {
      this.importNotice = { kind: 'error', text: importFailedText(error) };
      return null;
    } finally {
      this.importing = false;
      this._changed.emit();
    }
  }

  dismissImportNotice(): void {
    this.importNotice = null;
    this._changed.emit();
  }

  setView(view: PanelView): void {
    this.view = view;
    this._changed.emit();
    if (view === 'suites') {
      void this.refresh();
    }
  }

  setThisNotebookOnly(value: boolean): void {
    this.thisNotebookOnly = value;
    this._changed.emit();
  }

  /** The current notebook changed: the filtered list may differ. */
  notebookChanged(): void {
    if (this.thisNotebookOnly) {
      this._changed.emit();
    }
  }

  dispose(): void {
    this._poll.dispose();
    Signal.clearData(this);
  }

  private async _checkForChanges(): Promise<void> {
    const token = await api.changeToken();
    if (token !== this._token || Date.now() - this._listedAt >= AGES_MS) {
      await this.refresh();
    }
  }

  private _token: number | null = null;
  private _listedAt = 0;
  private _poll: Poll;
  private _changed = new Signal<this, void>(this);
  private _removed = new Signal<this, string>(this);
}
