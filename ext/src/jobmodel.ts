/** The state of one job's main-area tab: the job as the server sends it (its digest and runs) and an error. */

import { ISignal, Signal } from '@lumino/signaling';

import * as api from './api';
import { IJobTab } from './job';

export class JobModel {
  constructor(readonly jobId: string) {}

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  page: IJobTab | null = null;
  error: string | null = null;

  /** (Re)load the job; an error is shown in the tab (over the last job shown, if any). */
  async load(): Promise<void> {
    try {
      this.page = await api.fetchJob(this.jobId);
      this.error = null;
    } catch (error) {
      this.error = `Cannot load job ${this.jobId}: ${(error as Error).message}`;
    }
    this._changed.emit();
  }

  dispose(): void {
    Signal.clearData(this);
  }

  private _changed = new Signal<this, void>(this);
}
