/**
 * The state of one run's main-area tab: the run as the server sends it (with the digest), its
 * figures (loaded after the run, so the tables show first), the chosen tab, and an error.
 */

import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import { isMissingRun } from './deletedrun';
import { DetailTab } from './detail';
import { IPlotlyFigure, IProfileRun } from './types';

export class RunDetailModel {
  constructor(
    readonly runId: string,
    tab: DetailTab = 'Overview',
    title: string | null = null
  ) {
    this.tab = tab;
    this.title = title;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  run: IProfileRun | null = null;
  figures: Record<string, IPlotlyFigure> | null = null;
  error: string | null = null;
  /** The store has no such run (the server's 404): it was deleted after its tab was opened. */
  missing = false;
  /** The run's title as the run list words it (runlist.ts runTitle), kept for a restored tab whose run is gone. */
  title: string | null;
  tab: DetailTab;

  /** (Re)load the run, then its figures; an error is shown in the tab. */
  async load(): Promise<void> {
    try {
      this.run = await api.getRun(this.runId);
      this.error = null;
      this.missing = false;
      this._changed.emit();
      this.figures = await api.getFigures(this.runId).catch(() => null);
    } catch (error) {
      this.missing = isMissingRun(error);
      this.error = this.missing ? null : `Cannot load run ${this.runId}: ${(error as Error).message}`;
    }
    this._changed.emit();
  }

  /** The compile open in the Compiles tab (digest/compiles.py's key), or null for its first. */
  compileKey: string | null = null;

  /** Open a compile: the Compiles tab, with it chosen. */
  openCompile(key: string): void {
    this.compileKey = key;
    this.tab = 'Compiles';
    this._changed.emit();
  }

  setTab(tab: DetailTab): void {
    if (tab !== this.tab) {
      this.tab = tab;
      this._changed.emit();
    }
  }

  dispose(): void {
    Signal.clearData(this);
  }

  private _changed = new Signal<this, void>(this);
}
