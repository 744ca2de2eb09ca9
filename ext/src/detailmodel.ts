/**
 * The state of one run's main-area tab: the run as the server sends it (with the digest), its
 * figures (loaded after the run, so the tables show first), the chosen tab, and an error.
 */

import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import { DetailTab } from './detail';
import { IPlotlyFigure, IProfileRun } from './types';

export class RunDetailModel {
  constructor(
    readonly runId: string,
    tab: DetailTab = 'Overview'
  ) {
    this.tab = tab;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  run: IProfileRun | null = null;
  figures: Record<string, IPlotlyFigure> | null = null;
  error: string | null = null;
  tab: DetailTab;

  /** (Re)load the run, then its figures; an error is shown in the tab. */
  async load(): Promise<void> {
    try {
      this.run = await api.getRun(this.runId);
      this.error = null;
      this._changed.emit();
      this.figures = await api.getFigures(this.runId).catch(() => null);
    } catch (error) {
      this.error = `Cannot load run ${this.runId}: ${(error as Error).message}`;
    }
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
