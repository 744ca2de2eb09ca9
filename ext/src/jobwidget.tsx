/**
 * A distributed job in JupyterLab's main area (issue 14): a closable tab, one per job id (opening a
 * job again activates its tab), as a run's detail opens (detailwidget.tsx); in Notebook 7 in the
 * right sidebar.  JobTabs opens them and tracks them for the layout restorer.
 */

import { ILayoutRestorer, JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget, WidgetTracker } from '@jupyterlab/apputils';
import { LabIcon, ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import * as React from 'react';

import * as api from './api';
import { jobWidgetId } from './job';
import { JobModel } from './jobmodel';
import { JobView } from './jobview';

export const OPEN_JOB_COMMAND = 'compile-profile:open-job';

class JobContent extends ReactWidget {
  constructor(
    readonly model: JobModel,
    private readonly _openRun: (runId: string) => void
  ) {
    super();
    this.addClass('cp-DetailContent');
    this.addClass('cp-JobContent');
  }

  protected render(): JSX.Element {
    return (
      <UseSignal signal={this.model.changed}>
        {() => {
          const { page, error } = this.model;
          return (
            <>
              {error ? <div className="cp-Error">{error}</div> : null}
              {page ? (
                <JobView
                  page={page}
                  openRun={this._openRun}
                  reportUrl={api.jobReportUrl(this.model.jobId)}
                  onReload={() => void this.model.load()}
                />
              ) : error ? null : (
                <div className="cp-Loading">Loading…</div>
              )}
            </>
          );
        }}
      </UseSignal>
    );
  }
}

export class JobWidget extends MainAreaWidget<JobContent> {
  constructor(model: JobModel, openRun: (runId: string) => void, icon: LabIcon) {
    super({ content: new JobContent(model, openRun) });
    this.id = jobWidgetId(model.jobId);
    this.addClass('cp-JobWidget');
    this.title.icon = icon;
    this.title.closable = true;
    this.title.label = `job ${model.jobId}`;
    this.title.caption = `Compile Profile job ${model.jobId}`;
  }

  get model(): JobModel {
    return this.content.model;
  }

  dispose(): void {
    this.model.dispose();
    super.dispose();
  }
}

/** The open job tabs: one per job id. */
export class JobTabs {
  constructor(
    private readonly _app: JupyterFrontEnd,
    private readonly _openRun: (runId: string) => void,
    private readonly _icon: LabIcon
  ) {}

  readonly tracker = new WidgetTracker<JobWidget>({ namespace: 'compile-profile-job' });

  /** Reopen, after a reload, the jobs whose tabs were open. */
  restore(restorer: ILayoutRestorer): void {
    void restorer.restore(this.tracker, {
      command: OPEN_JOB_COMMAND,
      args: w => ({ jobId: w.model.jobId }),
      name: w => w.model.jobId
    });
  }

  /** Open `jobId`'s tab, or activate (and reload) it when it is open. */
  async open(jobId: string): Promise<JobWidget> {
    const open = this.tracker.find(w => w.model.jobId === jobId);
    if (open) {
      this._app.shell.activateById(open.id);
      await open.model.load();
      return open;
    }
    const model = new JobModel(jobId);
    const widget = new JobWidget(model, this._openRun, this._icon);
    const loaded = model.load();
    this._app.shell.add(widget, 'main', { mode: 'tab-after' });
    if (!widget.parent) {
      // Notebook 7's main area holds its one document: the job opens in the right sidebar there.
      this._app.shell.add(widget, 'right', { rank: 902 });
    }
    this._app.shell.activateById(widget.id);
    void this.tracker.add(widget);
    await loaded;
    return widget;
  }

  /** The job whose tab is the current one in the main area, or null. */
  get currentJobId(): string | null {
    return this.tracker.currentWidget?.model.jobId ?? null;
  }
}
