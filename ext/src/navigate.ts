/** Showing a run's cell line in its notebook: the cell whose source the run recorded. */

import { JupyterFrontEnd } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { findCell } from './cellmatch';
import { samePath } from './runlist';
import { IProfileRun } from './types';

function notebookFor(
  tracker: INotebookTracker,
  run: Pick<IProfileRun, 'notebook' | 'cell_source'>
): NotebookPanel | null {
  const candidates: NotebookPanel[] = [];
  tracker.forEach(panel => candidates.push(panel));
  const byPath = candidates.find(p => samePath(run.notebook, p.context.path));
  if (byPath) {
    return byPath;
  }
  // A run from an untitled or renamed notebook: any open notebook that holds the cell.
  const current = tracker.currentWidget;
  const ordered = current ? [current, ...candidates.filter(p => p !== current)] : candidates;
  return (
    ordered.find(p =>
      findCell(
        p.content.widgets.map(c => c.model.sharedModel.getSource()),
        run.cell_source,
        null
      )
    ) ?? null
  );
}

/**
 * Activate the notebook, select the cell and put the cursor on `line` (1-based cell line, as in
 * GraphBreak.line; null selects the cell).  Returns false (and tells the user) when the cell is gone.
 */
export async function revealCellLine(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  run: Pick<IProfileRun, 'notebook' | 'cell_source'>,
  line: number | null
): Promise<boolean> {
  const panel = notebookFor(tracker, run);
  const target = panel
    ? findCell(
        panel.content.widgets.map(c => c.model.sharedModel.getSource()),
        run.cell_source,
        line
      )
    : null;
  if (!panel || !target) {
    Notification.warning(
      `The profiled cell is not in ${run.notebook ? `an open notebook (${run.notebook})` : 'an open notebook'}: it was edited, deleted or its notebook is closed.`,
      { autoClose: 5000 }
    );
    return false;
  }
  app.shell.activateById(panel.id);
  const notebook = panel.content;
  notebook.deselectAll();
  notebook.activeCellIndex = target.index;
  await notebook.scrollToItem(target.index, 'center');
  const cell = notebook.widgets[target.index];
  await cell.ready;
  const editor = cell.editor;
  if (editor) {
    const last = Math.max(0, editor.lineCount - 1);
    const position = { line: Math.min(target.editorLine, last), column: 0 };
    editor.setCursorPosition(position);
    editor.revealPosition(position);
  }
  cell.node.classList.add('cp-mod-revealed');
  window.setTimeout(() => cell.node.classList.remove('cp-mod-revealed'), 1600);
  return true;
}
