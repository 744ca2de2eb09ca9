/**
 * The panel's state: the run list from the store, the selected run, and a cheap poll of the
 * store's change token so runs written by any kernel appear without a refresh.
 */

import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import { DetailTab } from './detail';
import { filterByNotebook, newestFirst } from './runlist';
import { IPlotlyFigure, IProfileRun, IRunSummary } from './types';

/** Summaries are small; the newest this many are listed, the count says if there are more. */
export const LIST_LIMIT = 500;
const POLL_MS = 2000;

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

  runs: IRunSummary[] = [];
  total = 0;
  error: string | null = null;
  thisNotebookOnly = false;
  selected: IProfileRun | null = null;
  selectedFigures: Record<string, IPlotlyFigure> | null = null;
  loadingId: string | null = null;
  tab: DetailTab = 'Overview';
  view: 'runs' | 'compare' = 'runs';

  get visibleRuns(): IRunSummary[] {
    return this.thisNotebookOnly
      ? filterByNotebook(this.runs, this._currentNotebook(), this._runIdsShown())
      : this.runs;
  }

  async refresh(): Promise<void> {
    try {
      const page = await api.listRuns({ limit: LIST_LIMIT });
      this.runs = newestFirst(page.runs);
      this.total = page.total;
      this._token = page.token;
      this.error = null;
      if (this.selected && !this.runs.some(r => r.id === this.selected!.id)) {
        this.selected = null; // deleted elsewhere
        this.selectedFigures = null;
      }
    } catch (error) {
      this.error = `Cannot read the run store: ${(error as Error).message}`;
    }
    this._changed.emit();
  }

  async select(id: string | null, tab?: DetailTab): Promise<void> {
    if (tab) {
      this.tab = tab;
    }
    this.view = 'runs';
    if (id === null) {
      this.selected = null;
      this.selectedFigures = null;
      this._changed.emit();
      return;
    }
    this.loadingId = id;
    this._changed.emit();
    try {
      const run = await api.getRun(id);
      if (this.loadingId !== id) {
        return; // another selection overtook this one
      }
      this.selected = run;
      this.selectedFigures = null;
      this.error = null;
      this._changed.emit();
      this.selectedFigures = await api.getFigures(id).catch(() => null);
    } catch (error) {
      this.error = `Cannot load run ${id}: ${(error as Error).message}`;
    } finally {
      if (this.loadingId === id) {
        this.loadingId = null;
      }
    }
    this._changed.emit();
  }

  async remove(id: string): Promise<void> {
    await api.deleteRun(id);
    if (this.selected?.id === id) {
      this.selected = null;
      this.selectedFigures = null;
    }
    await this.refresh();
  }

  setTab(tab: DetailTab): void {
    this.tab = tab;
    this._changed.emit();
  }

  setView(view: 'runs' | 'compare'): void {
    this.view = view;
    this._changed.emit();
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
    if (token !== this._token) {
      await this.refresh();
    }
  }

  private _token: number | null = null;
  private _poll: Poll;
  private _changed = new Signal<this, void>(this);
}
