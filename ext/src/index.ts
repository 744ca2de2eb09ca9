/**
 * compile-profile's JupyterLab extension: the in-cell renderer of a run, the "Compile Profile"
 * sidebar panel and its `compile-profile:open` command.
 */

import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, IThemeManager } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { LabIcon } from '@jupyterlab/ui-components';

import { OPEN_COMMAND, runCardFactory } from './card';
import { ChartRenderer, ThemeWatcher } from './charts';
import { DETAIL_TABS, DetailTab } from './detail';
import { PanelModel } from './model';
import { CompileProfilePanel } from './panel';
import { revealCellLine } from './navigate';
import { runIdsShownIn } from './runlist';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M13 2 4 14h6l-1 8 9-12h-6z"/></svg>';

const compileProfileIcon = new LabIcon({ name: 'compile-profile:icon', svgstr: ICON_SVG });

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'compile-profile:plugin',
  description: 'Renders compile-profile runs in cells and lists every run in a sidebar panel.',
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
    const panel = new CompileProfilePanel(model, {
      charts,
      languages,
      revealLine: (run, line) => revealCellLine(app, notebooks, run, line)
    });
    panel.title.icon = compileProfileIcon;
    panel.title.caption = 'Compile Profile';
    app.shell.add(panel, 'right', { rank: 900 });
    restorer?.add(panel, 'compile-profile');
    notebooks.currentChanged.connect(() => model.notebookChanged());
    void model.refresh();

    app.commands.addCommand(OPEN_COMMAND, {
      label: 'Open Compile Profile',
      caption: 'Show the Compile Profile panel (optionally one run in it)',
      icon: compileProfileIcon,
      describedBy: {
        args: {
          type: 'object',
          properties: {
            runId: { type: 'string', description: 'The run to show' },
            tab: { type: 'string', enum: [...DETAIL_TABS] }
          }
        }
      },
      execute: async args => {
        app.shell.activateById(panel.id);
        const runId = typeof args.runId === 'string' ? args.runId : null;
        const tab = DETAIL_TABS.includes(args.tab as DetailTab) ? (args.tab as DetailTab) : undefined;
        if (runId) {
          await model.refresh();
          await model.select(runId, tab);
        } else if (tab) {
          model.setTab(tab);
        }
      }
    });
    palette?.addItem({ command: OPEN_COMMAND, category: 'Compile Profile' });

    rendermime.addFactory(
      runCardFactory(charts, runId => void app.commands.execute(OPEN_COMMAND, { runId })),
      0
    );
  }
};

export default plugin;
