/**
 * A run's detail in JupyterLab's main area: a closable tab beside the notebook, as JupyterLab's
 * own documents open, one per run id (opening a run again activates its tab), titled as the run
 * list titles it (runTitle); in Notebook 7, whose main area holds one document, in the right sidebar.
 * A run opens on the tab asked for, else on the one last chosen in any run's detail.  RunDetailTabs opens them, tracks them for the layout restorer and
 * closes a run's tab when the run is deleted.
 */

import { ILayoutRestorer, JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget, WidgetTracker } from '@jupyterlab/apputils';
import { LabIcon, ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import * as React from 'react';

import { DetailTab, RunDetail } from './detail';
import { RunDetailModel } from './detailmodel';
import { IDetailServices } from './detailprops';
import { runTitle } from './runlist';

export const OPEN_RUN_COMMAND = 'compile-profile:open-run';

/** The DOM id of a run's tab; run ids are [A-Za-z0-9_-], safe in an id. */
export function detailWidgetId(runId: string): string {
  return `compile-profile-run-${runId}`;
}

class RunDetailContent extends ReactWidget {
  constructor(
    readonly model: RunDetailModel,
    private readonly _services: IDetailServices
  ) {
    super();
    this.addClass('cp-DetailContent');
  }

  protected render(): JSX.Element {
    return (
      <UseSignal signal={this.model.changed}>
        {() => {
          const { run, error } = this.model;
          if (!run) {
            return error ? (
              <div className="cp-Error">{error}</div>
            ) : (
              <div className="cp-Loading">Loading…</div>
            );
          }
          return (
            <>
              {error ? <div className="cp-Error">{error}</div> : null}
              <RunDetail
                run={run}
                figures={this.model.figures}
                services={this._services}
                tab={this.model.tab}
                onTab={tab => this.model.setTab(tab)}
              />
            </>
          );
        }}
      </UseSignal>
    );
  }
}

export class RunDetailWidget extends MainAreaWidget<RunDetailContent> {
  constructor(model: RunDetailModel, services: IDetailServices, icon: LabIcon) {
    super({ content: new RunDetailContent(model, services) });
    this.id = detailWidgetId(model.runId);
    this.addClass('cp-DetailWidget');
    this.title.icon = icon;
    this.title.closable = true;
    this.title.label = model.runId;
    this.title.caption = `Compile Profile run ${model.runId}`;
    model.changed.connect(() => {
      const run = model.run;
      if (run) {
        // The digest's summary holds the first code line the run list titles a run by.
        const title = runTitle(run.summary ?? { id: run.id, label: run.label, first_line: '' });
        this.title.label = title;
        this.title.caption = `Compile Profile: ${title} (${run.id})`;
      }
    });
  }

  get model(): RunDetailModel {
    return this.content.model;
  }

  dispose(): void {
    this.model.dispose();
    super.dispose();
  }
}

/** The open run tabs: one per run id. */
export class RunDetailTabs {
  constructor(
    private readonly _app: JupyterFrontEnd,
    private readonly _services: IDetailServices,
    private readonly _icon: LabIcon
  ) {}

  readonly tracker = new WidgetTracker<RunDetailWidget>({ namespace: 'compile-profile-run' });

  /** Reopen, after a reload, the runs whose tabs were open. */
  restore(restorer: ILayoutRestorer): void {
    void restorer.restore(this.tracker, {
      command: OPEN_RUN_COMMAND,
      args: w => ({ runId: w.model.runId, tab: w.model.tab }),
      name: w => w.model.runId
    });
  }

  /** Open `runId`'s tab, or activate it when it is open; `tab` picks the detail's tab. */
  async open(runId: string, tab?: DetailTab): Promise<RunDetailWidget> {
    const open = this.tracker.find(w => w.model.runId === runId);
    if (open) {
      if (tab) {
        open.model.setTab(tab);
      }
      this._app.shell.activateById(open.id);
      return open;
    }
    const model = new RunDetailModel(runId, tab ?? this._lastTab);
    model.changed.connect(() => (this._lastTab = model.tab));
    const widget = new RunDetailWidget(model, this._services, this._icon);
    const loaded = model.load();
    this._app.shell.add(widget, 'main', { mode: 'tab-after' });
    if (!widget.parent) {
      // Notebook 7's main area holds its one document: the run opens in the right sidebar there.
      this._app.shell.add(widget, 'right', { rank: 901 });
    }
    this._app.shell.activateById(widget.id);
    void this.tracker.add(widget);
    await loaded;
    return widget;
  }

  /** The run was deleted: its tab closes. */
  close(runId: string): void {
    this.tracker.find(w => w.model.runId === runId)?.close();
  }

  private _lastTab: DetailTab = 'Overview';

  /** The run whose tab is the current one in the main area, or null. */
  get currentRunId(): string | null {
    return this.tracker.currentWidget?.model.runId ?? null;
  }
}
