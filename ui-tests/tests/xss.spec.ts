/**
 * Markup that a cell controls never runs in JupyterLab.  The text includes labels, the cell
 * source, graph-break reasons, graph code, kernel names and source, and notes.  Two views are
 * opened with a dialog listener and a sentinel (`window.__xss`) watching: the in-cell card of a
 * hostile run, and every tab of the seeded hostile run's detail (a main-area tab, rundetail.ts).
 * Both runs are tests/render_fixtures.py's hostile_run().  Its payload opens an alert; for the card it also
 * sets the sentinel.  The exported report and the static HTML are checked the same way from
 * pytest (tests/test_reliability_text.py).
 */
import { execFileSync } from 'child_process';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { PANEL, runDetail } from './rundetail';

const HOSTILE_RUN = 'uihostile001'; // seeded by seed_runs.py
const NOTEBOOK = 'xss-card.ipynb';
const SENTINEL = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2;alert(2)">';
const DETAIL_TABS = ['Overview', 'Compile', 'Graph breaks', 'Graphs', 'Guards', 'Kernels', 'Lines'];

test.use({ autoGoto: true });

/** A notebook whose one output is the card of hostile_run(), with the sentinel payload in place of its own. */
function hostileNotebook(): string {
  const repo = path.resolve(__dirname, '..', '..');
  const script = `
import json, sys
sys.path[:0] = [${JSON.stringify(path.join(repo, 'tests'))}, ${JSON.stringify(path.join(repo, 'kernel_side'))}]
from render_fixtures import HOSTILE, hostile_run
from compile_profile.profile_run import ProfileRun
from compile_profile.render.mime import mime_bundle
sentinel = ${JSON.stringify(SENTINEL)}
text = hostile_run().to_json().replace(json.dumps(HOSTILE)[1:-1], json.dumps(sentinel)[1:-1])
run = ProfileRun.from_json(text)
assert sentinel in run.label
cell = {"cell_type": "code", "execution_count": None, "id": "hostile", "metadata": {},
        "source": "%%compile_profile\\n" + run.cell_source,
        "outputs": [{"output_type": "display_data", "data": mime_bundle(run), "metadata": {}}]}
print(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
`;
  return execFileSync(process.env.CP_PYTHON!, ['-c', script], { encoding: 'utf-8' });
}

/** Collects every dialog the page opens (and dismisses it, so nothing blocks). */
function watchDialogs(page: IJupyterLabPageFixture): string[] {
  const dialogs: string[] = [];
  page.on('dialog', dialog => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return dialogs;
}

async function expectNothingRan(page: IJupyterLabPageFixture, dialogs: string[]): Promise<void> {
  expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  await expect(page.locator(`${PANEL} script, .cp-Card script, .cp-DetailWidget script`)).toHaveCount(0);
}

test('the card of a hostile run shows its markup as text', async ({ page }) => {
  const dialogs = watchDialogs(page);
  await page.contents.uploadContent(hostileNotebook(), 'text', NOTEBOOK);
  await page.evaluate(async name => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('docmanager:open', { path: name });
  }, NOTEBOOK);
  const card = page.locator('.jp-NotebookPanel .cp-Card').first();
  await card.waitFor();
  await expect(card).toContainText(SENTINEL); // the label, as characters
  await expect(card.locator('.js-plotly-plot').first()).toBeVisible(); // its chart, labels included, has drawn
  await expectNothingRan(page, dialogs);
  await page.contents.deleteFile(NOTEBOOK);
});

test('every detail tab of a hostile run shows its markup as text', async ({ page }) => {
  const dialogs = watchDialogs(page);
  await page.evaluate(async runId => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('compile-profile:open', { runId, tab: 'Overview' });
  }, HOSTILE_RUN);
  const detail = runDetail(page, HOSTILE_RUN);
  await expect(detail).toBeVisible();
  const shown: string[] = [];
  for (const tab of DETAIL_TABS) {
    await detail.locator('.cp-Tab', { hasText: tab }).click();
    if (tab === 'Graphs') {
      const picker = detail.locator('.cp-Graphs select');
      for (const value of await picker
        .locator('option')
        .evaluateAll(os => os.map(o => (o as HTMLOptionElement).value))) {
        await picker.selectOption(value);
        shown.push(await detail.innerText());
      }
    } else if (tab === 'Kernels') {
      for (const row of await detail.locator('.cp-KernelTable tbody tr').all()) {
        await row.click();
        shown.push(await detail.innerText());
      }
    } else {
      for (const plot of await detail.locator('.js-plotly-plot').all()) {
        await plot.hover();
      }
      shown.push(await detail.innerText());
    }
  }
  const text = shown.join('\n');
  // The payload is there, as characters, in the break reason, the graph code and the kernel source.
  expect(text).toContain('builtin: print <script>alert(1)</script><img src=x onerror=alert(1)>');
  expect(text.split('<script>alert(1)</script>').length - 1).toBeGreaterThanOrEqual(4);
  await expectNothingRan(page, dialogs);
});
