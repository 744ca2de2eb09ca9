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

import { missingRunLabel, missingRunText } from './deletedrun';
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
    private readonly _services: IDetailServices,
    private readonly _close: () => void
  ) {
    super();
    this.addClass('cp-DetailContent');
  }

  protected render(): JSX.Element {
    return (
      <UseSignal signal={this.model.changed}>
        {() => {
          const { run, error, missing } = this.model;
          if (!run && missing) {
            return (
              <div className="cp-Missing" role="status">
                <p className="cp-Missing-text">{missingRunText(this.model.runId, this.model.title)}</p>
                <button
                  className="jp-Button jp-mod-styled jp-mod-reject cp-Missing-close"
                  onClick={() => this._close()}
                >
                  Close this tab
                </button>
              </div>
            );
          }
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
                compileKey={this.model.compileKey}
                onCompile={key => this.model.openCompile(key)}
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
    super({ content: new RunDetailContent(model, services, () => this.close()) });
    this.id = detailWidgetId(model.runId);
    this.addClass('cp-DetailWidget');
    this.title.icon = icon;
    this.title.closable = true;
    this.title.label = model.title || model.runId;
    this.title.caption = `Compile Profile run ${model.runId}`;
    model.changed.connect(() => {
      const run = model.run;
      if (run) {
        // The digest's summary holds the first code line the run list titles a run by.
        const title = runTitle(run.summary ?? { id: run.id, label: run.label, first_line: '' });
        model.title = title;
        this.title.label = title;
        this.title.caption = `Compile Profile: ${title} (${run.id})`;
      } else if (model.missing) {
        this.title.label = missingRunLabel(model.runId, model.title);
        this.title.caption = `Compile Profile: run ${model.runId} is no longer in the run store`;
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
      // the title too: a restored tab whose run was deleted since names it by it, not by a bare id
      args: w => ({
        runId: w.model.runId,
        tab: w.model.tab,
        ...(w.model.title ? { title: w.model.title } : {})
      }),
      name: w => w.model.runId
    });
  }

  /**
   * Open `runId`'s tab, or activate it when it is open; `tab` picks the detail's tab, `title` names the run
   * until it loads (a restored tab's, kept for a run deleted since).
   */
  async open(runId: string, tab?: DetailTab, title?: string): Promise<RunDetailWidget> {
    const open = this.tracker.find(w => w.model.runId === runId);
    if (open) {
      if (tab) {
        open.model.setTab(tab);
      }
      this._app.shell.activateById(open.id);
      return open;
    }
    const model = new RunDetailModel(runId, tab ?? this._lastTab, title ?? null);
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
    // The restorer keeps what a tab's args were when it was last saved: save again once the title is known.
    let saved = model.title;
    model.changed.connect(() => {
      if (model.title !== saved && !widget.isDisposed) {
        saved = model.title;
        void this.tracker.save(widget);
      }
    });
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
