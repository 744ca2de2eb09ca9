/**
 * A suite over a collection of models in JupyterLab (issue 34): its main-area tab, one per suite id (opening a suite
 * again activates and reloads its tab), as a job's opens (jobwidget.tsx), and its card in a notebook cell (the
 * renderer of `application/vnd.compile-profile.suite+json`, what `compile_profile.suite(...)` shows), both laying
 * out suiteview.tsx from the digest the server or the output carries.
 */

import { ILayoutRestorer, JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget, WidgetTracker } from '@jupyterlab/apputils';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { LabIcon, ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import { ISignal, Signal } from '@lumino/signaling';
import * as React from 'react';

import * as api from './api';
import { ChartRenderer } from './charts';
import { SuiteCompare } from './suitecompare';
import { SuiteView } from './suiteview';
import { ISuiteComparison, ISuiteListRow, ISuiteMimeData, ISuitePage, SUITE_MIME_TYPE } from './suitetypes';

export const OPEN_SUITE_COMMAND = 'compile-profile:open-suite';

/** The state of one suite's tab: the page as the server sends it, and an error. */
export class SuiteModel {
  constructor(readonly suiteId: string) {}

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  page: ISuitePage | null = null;
  error: string | null = null;
  /** the other readable suites the store holds, newest first: what this one can be compared with */
  others: ISuiteListRow[] = [];
  /** the suite this one is compared with ('' for none), the comparison, and why it could not be made */
  oldId = '';
  comparison: ISuiteComparison | null = null;
  comparisonError: string | null = null;

  async load(): Promise<void> {
    try {
      this.page = await api.fetchSuite(this.suiteId);
      this.error = null;
    } catch (error) {
      this.error = `Cannot load suite ${this.suiteId}: ${(error as Error).message}`;
    }
    try {
      const listed = await api.listSuites();
      this.others = listed.suites.filter(s => s.id !== this.suiteId && !s.unreadable);
    } catch {
      this.others = []; // the suite shows all the same; only the choice to compare is missing
    }
    if (this.oldId) {
      await this.compareWith(this.oldId, false);
    }
    this._changed.emit();
  }

  /** Compare this suite with the stored suite `oldId` ('' for none), as `suite-compare OLD THIS` does. */
  async compareWith(oldId: string, emit = true): Promise<void> {
    this.oldId = oldId;
    this.comparison = null;
    this.comparisonError = null;
    if (oldId) {
      try {
        this.comparison = await api.fetchSuiteComparison(this.suiteId, oldId);
      } catch (error) {
        this.comparisonError = `Cannot compare with suite ${oldId}: ${(error as Error).message}`;
      }
    }
    if (emit) {
      this._changed.emit();
    }
  }

  dispose(): void {
    Signal.clearData(this);
  }

  private _changed = new Signal<this, void>(this);
}

class SuiteContent extends ReactWidget {
  constructor(
    readonly model: SuiteModel,
    private readonly _charts: ChartRenderer,
    private readonly _openRun: (runId: string) => void
  ) {
    super();
    this.addClass('cp-DetailContent');
    this.addClass('cp-SuiteContent');
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
                <SuiteView
                  page={page}
                  charts={this._charts}
                  openRun={this._openRun}
                  reportUrl={api.suiteReportUrl(this.model.suiteId)}
                  onReload={() => void this.model.load()}
                  compare={
                    <SuiteCompare
                      others={this.model.others}
                      oldId={this.model.oldId}
                      comparison={this.model.comparison}
                      error={this.model.comparisonError}
                      onChoose={oldId => void this.model.compareWith(oldId)}
                    />
                  }
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

/** A suite tab's title: its label first where it has one, then its id. */
export function suiteTabTitle(suiteId: string, label: string): string {
  return label ? `${label} · suite ${suiteId}` : `suite ${suiteId}`;
}

export class SuiteWidget extends MainAreaWidget<SuiteContent> {
  constructor(model: SuiteModel, charts: ChartRenderer, openRun: (runId: string) => void, icon: LabIcon) {
    super({ content: new SuiteContent(model, charts, openRun) });
    this.id = `compile-profile-suite-${model.suiteId}`;
    this.addClass('cp-SuiteWidget');
    this.title.icon = icon;
    this.title.closable = true;
    this.title.label = `suite ${model.suiteId}`;
    this.title.caption = `Compile Profile suite ${model.suiteId}`;
    // once loaded, the suite's label leads the tab's title: three tabs read "suite f9d7930…" alike
    model.changed.connect(() => {
      const title = suiteTabTitle(model.suiteId, model.page?.suite.label ?? '');
      this.title.label = title;
      this.title.caption = `Compile Profile ${title}`;
    }, this);
  }

  get model(): SuiteModel {
    return this.content.model;
  }

  dispose(): void {
    this.model.dispose();
    super.dispose();
  }
}

/** The open suite tabs: one per suite id. */
export class SuiteTabs {
  constructor(
    private readonly _app: JupyterFrontEnd,
    private readonly _charts: ChartRenderer,
    private readonly _openRun: (runId: string) => void,
    private readonly _icon: LabIcon
  ) {}

  readonly tracker = new WidgetTracker<SuiteWidget>({ namespace: 'compile-profile-suite' });

  restore(restorer: ILayoutRestorer): void {
    void restorer.restore(this.tracker, {
      command: OPEN_SUITE_COMMAND,
      args: w => ({ suiteId: w.model.suiteId }),
      name: w => w.model.suiteId
    });
  }

  async open(suiteId: string): Promise<SuiteWidget> {
    const open = this.tracker.find(w => w.model.suiteId === suiteId);
    if (open) {
      this._app.shell.activateById(open.id);
      await open.model.load();
      return open;
    }
    const model = new SuiteModel(suiteId);
    const widget = new SuiteWidget(model, this._charts, this._openRun, this._icon);
    const loaded = model.load();
    this._app.shell.add(widget, 'main', { mode: 'tab-after' });
    if (!widget.parent) {
      this._app.shell.add(widget, 'right', { rank: 903 });
    }
    this._app.shell.activateById(widget.id);
    void this.tracker.add(widget);
    await loaded;
    return widget;
  }
}

/** A suite's card in a notebook cell, from the output's own data (it renders after a kernel restart). */
export class SuiteCard extends ReactWidget implements IRenderMime.IRenderer {
  constructor(
    private readonly _charts: ChartRenderer,
    private readonly _openRun: (runId: string) => void,
    private readonly _openSuite: (suiteId: string) => void
  ) {
    super();
    this.addClass('cp-SuiteCard');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._data = model.data[SUITE_MIME_TYPE] as unknown as ISuiteMimeData;
    this.update();
  }

  protected render(): JSX.Element | null {
    const data = this._data;
    if (!data) {
      return null;
    }
    return (
      <SuiteView
        page={data}
        charts={this._charts}
        openRun={this._openRun}
        onOpen={() => this._openSuite(data.suite.id)}
      />
    );
  }

  private _data: ISuiteMimeData | null = null;
}

export function suiteCardFactory(
  charts: ChartRenderer,
  openRun: (runId: string) => void,
  openSuite: (suiteId: string) => void
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [SUITE_MIME_TYPE],
    defaultRank: 0,
    createRenderer: () => new SuiteCard(charts, openRun, openSuite)
  };
}
