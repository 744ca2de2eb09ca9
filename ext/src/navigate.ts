/**
 * Showing a run's cell line in its notebook, and running that cell again: the cell whose source the
 * run recorded, in the notebook the run came from (or, for a run of an untitled or renamed notebook,
 * any open notebook that holds it).
 */

import { JupyterFrontEnd } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

import { findCell } from './cellmatch';
import { profiledCell, withOption } from './magicline';
import { samePath } from './runlist';
import { suiteEntry } from './suiteentry';
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

/** What Re-run did: ran the cell, or why it could not. */
export interface IRerunResult {
  ran: boolean;
  message: string;
}

/**
 * Run the run's cell again, with the options the run used: the notebook cell that holds the cell the run
 * profiled (magicline.ts profiledCell: the digest's `%%compile_profile` line and its code); the notebook comes to
 * the front with the cell selected, and the cell runs in that notebook's kernel.  Where there is no such
 * cell, nothing runs and the result says why.
 */
export async function rerunCell(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  run: Pick<IProfileRun, 'notebook' | 'cell_source' | 'summary' | 'suite_entry'>,
  option = ''
): Promise<IRerunResult> {
  const cell = profiledCell(run);
  const panel = notebookFor(tracker, { notebook: run.notebook, cell_source: cell });
  const where = run.notebook ? `its notebook (${run.notebook})` : 'a notebook holding its cell';
  if (!panel) {
    const entry = suiteEntry(run);
    if (!run.notebook && entry) {
      // a suite's entry ran in a process of its own, from a collection's builder: no cell holds it
      return {
        ran: false,
        message: `Not re-run: this run is the entry "${entry.name}" of suite ${entry.suite}, built by its collection, not a notebook cell. Run it again with compile-profile suite COLLECTION --only "${entry.name}" (the Suites view names the collection).`
      };
    }
    return {
      ran: false,
      message: `Not re-run: ${where} is not open. Open it and try again, or Copy the cell.`
    };
  }
  const sources = panel.content.widgets.map(c => c.model.sharedModel.getSource());
  const target = findCell(sources, cell, null);
  const trim = (s: string) => s.replace(/\s+$/, '');
  if (!target) {
    return {
      ran: false,
      message: `Not re-run: no cell of ${panel.context.path} holds this run's code any more (edited or deleted). Copy gives the cell.`
    };
  }
  if (trim(sources[target.index]) !== trim(cell)) {
    return {
      ran: false,
      message: `Not re-run: cell ${target.index + 1} of ${panel.context.path} holds this run's code but not as it ran (its %%compile_profile line or code was edited since). Copy gives the cell as it ran.`
    };
  }
  app.shell.activateById(panel.id);
  const notebook = panel.content;
  notebook.deselectAll();
  notebook.activeCellIndex = target.index;
  await notebook.scrollToItem(target.index, 'center');
  // The option goes on the cell's own %%compile_profile line, where the user sees it and can take it out again.
  const changed = option ? withOption(sources[target.index], option) : sources[target.index];
  if (changed !== sources[target.index]) {
    notebook.widgets[target.index].model.sharedModel.setSource(changed);
  }
  // A notebook opened a moment ago has no kernel yet: the run would find none and ask which to start.
  await panel.sessionContext.ready;
  void NotebookActions.run(notebook, panel.sessionContext);
  const how = option ? ` with ${option} (added to its %%compile_profile line)` : ' again';
  return { ran: true, message: `Running cell ${target.index + 1} of ${panel.context.path}${how}.` };
}
