/**
 * compile-profile's JupyterLab extension: the in-cell renderer of a run, the "Compile Profile"
 * sidebar panel (run list and Compare), a run's detail in a main-area tab, and their commands:
 * `compile-profile:open` shows the panel (and, given a runId, opens that run's tab),
 * `compile-profile:open-run` opens a run's tab beside the notebook, `compile-profile:open-job` a
 * distributed job's tab (its ranks side by side), `compile-profile:open-suite` a suite's over a collection of
 * models (suitewidget.tsx, which also renders a suite's card in a cell).
 */

import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, IThemeManager, showErrorMessage } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { LabIcon } from '@jupyterlab/ui-components';

import { getRun } from './api';
import { BISECT_COMMAND, OPEN_COMMAND, runCardFactory } from './card';
import { ChartRenderer, ThemeWatcher } from './charts';
import { DETAIL_TABS, isDetailTab } from './detail';
import { OPEN_RUN_COMMAND, RunDetailTabs } from './detailwidget';
import { JobTabs, OPEN_JOB_COMMAND } from './jobwidget';
import { PanelModel } from './model';
import { CompileProfilePanel } from './panel';
import { revealCellLine, rerunCell } from './navigate';
import { progressFactory } from './progress';
import { runIdsShownIn } from './runlist';
import { OPEN_SUITE_COMMAND, suiteCardFactory, SuiteTabs } from './suitewidget';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M13 2 4 14h6l-1 8 9-12h-6z"/></svg>';

const compileProfileIcon = new LabIcon({ name: 'compile-profile:icon', svgstr: ICON_SVG });

const RUN_ARGS = {
  type: 'object',
  properties: {
    runId: { type: 'string', description: 'The run to show' },
    tab: { type: 'string', enum: [...DETAIL_TABS] },
    title: { type: 'string', description: "The run's title, shown until it loads or if it was deleted" }
  }
};

const SUITE_ARGS = {
  type: 'object',
  properties: {
    suiteId: { type: 'string', description: 'The suite over a collection of models to show' }
  },
  required: ['suiteId']
};

const JOB_ARGS = {
  type: 'object',
  properties: {
    jobId: { type: 'string', description: 'The distributed job to show' }
  },
  required: ['jobId']
};

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'compile-profile:plugin',
  description:
    'Renders compile-profile runs in cells, lists every run in a sidebar panel and opens a run in the main area.',
  autoStart: true,
  requires: [IRenderMimeRegistry, INotebookTracker, IEditorLanguageRegistry],
  optional: [ICommandPalette, IThemeManager, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    notebooks: INotebookTracker,
    languages: IEditorLanguageRegistry,
    palette: ICommandPalette | null,
    themeManager: IThemeManager | null,
    restorer: ILayoutRestorer | null
  ) => {
    const theme = new ThemeWatcher(themeManager);
    const charts = new ChartRenderer(rendermime, theme);
    const model = new PanelModel(
      () => notebooks.currentWidget?.context.path ?? null,
      () => runIdsShownIn(notebooks.currentWidget?.model?.cells ?? [])
    );
    const details = new RunDetailTabs(
      app,
      {
        charts,
        languages,
        revealLine: (run, line) => revealCellLine(app, notebooks, run, line),
        rerun: (run, option) => rerunCell(app, notebooks, run, option)
      },
      compileProfileIcon
    );
    const openRun = (runId: string) => void app.commands.execute(OPEN_RUN_COMMAND, { runId });
    const jobs = new JobTabs(app, openRun, compileProfileIcon);
    const suites = new SuiteTabs(app, charts, openRun, compileProfileIcon);
    const openSuite = (suiteId: string) => void app.commands.execute(OPEN_SUITE_COMMAND, { suiteId });
    const panel = new CompileProfilePanel(
      model,
      openRun,
      jobId => void app.commands.execute(OPEN_JOB_COMMAND, { jobId }),
      openSuite
    );
    panel.title.icon = compileProfileIcon;
    panel.title.caption = 'Compile Profile';
    app.shell.add(panel, 'right', { rank: 900 });
    if (restorer) {
      restorer.add(panel, 'compile-profile');
      details.restore(restorer);
      jobs.restore(restorer);
      suites.restore(restorer);
    }
    notebooks.currentChanged.connect(() => model.notebookChanged());
    details.tracker.currentChanged.connect(() => model.setCurrentRun(details.currentRunId));
    jobs.tracker.currentChanged.connect(() => model.setCurrentJob(jobs.currentJobId));
    model.removed.connect((_, runId) => details.close(runId));
    void model.refresh();

    app.commands.addCommand(OPEN_RUN_COMMAND, {
      label: 'Open Compile Profile Run',
      caption: "Open a run's detail in the main area (or activate its tab)",
      icon: compileProfileIcon,
      describedBy: { args: RUN_ARGS },
      execute: async args => {
        if (typeof args.runId === 'string' && args.runId) {
          await details.open(
            args.runId,
            isDetailTab(args.tab) ? args.tab : undefined,
            typeof args.title === 'string' ? args.title : undefined
          );
        }
      }
    });

    app.commands.addCommand(OPEN_JOB_COMMAND, {
      label: 'Open Compile Profile Job',
      caption: "Open a distributed job's ranks side by side in the main area (or activate its tab)",
      icon: compileProfileIcon,
      describedBy: { args: JOB_ARGS },
      execute: async args => {
        if (typeof args.jobId === 'string' && args.jobId) {
          await jobs.open(args.jobId);
        }
      }
    });

    app.commands.addCommand(OPEN_SUITE_COMMAND, {
      label: 'Open Compile Profile Suite',
      caption: 'Open a suite over a collection of models in the main area (or activate its tab)',
      icon: compileProfileIcon,
      describedBy: { args: SUITE_ARGS },
      execute: async args => {
        if (typeof args.suiteId === 'string' && args.suiteId) {
          await suites.open(args.suiteId);
        }
      }
    });

    app.commands.addCommand(OPEN_COMMAND, {
      label: 'Open Compile Profile',
      caption: 'Show the Compile Profile panel (and, given a run, open it in the main area)',
      icon: compileProfileIcon,
      describedBy: { args: RUN_ARGS },
      execute: async args => {
        app.shell.activateById(panel.id);
        if (typeof args.runId === 'string' && args.runId) {
          await app.commands.execute(OPEN_RUN_COMMAND, args);
        }
      }
    });
    palette?.addItem({ command: OPEN_COMMAND, category: 'Compile Profile' });

    app.commands.addCommand(BISECT_COMMAND, {
      label: 'Bisect a Compile Profile Run',
      caption: "Run a failed or mismatching run's cell again with --bisect, in the notebook it came from",
      icon: compileProfileIcon,
      describedBy: { args: RUN_ARGS },
      execute: async args => {
        if (typeof args.runId !== 'string' || !args.runId) {
          return;
        }
        const result = await rerunCell(app, notebooks, await getRun(args.runId), '--bisect');
        if (!result.ran) {
          void showErrorMessage('Not bisected', result.message);
        }
      }
    });

    const bisectRun = (runId: string) => void app.commands.execute(BISECT_COMMAND, { runId });
    rendermime.addFactory(runCardFactory(charts, openRun, bisectRun), 0);
    rendermime.addFactory(progressFactory, 0);
    rendermime.addFactory(suiteCardFactory(charts, openRun, openSuite), 0);
  }
};

export default plugin;
