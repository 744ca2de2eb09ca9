/**
 * Markup that a cell controls never runs in JupyterLab.  The text includes labels, the cell
 * source, graph-break reasons, graph code, kernel names and source, and notes.  Two views are
 * opened with a dialog listener and a sentinel (`window.__xss`) watching: the in-cell card of a
 * hostile run, and every tab of the seeded hostile run's detail (a main-area tab, rundetail.ts).
 * Both runs are tests/render_fixtures.py's hostile_run().  Its payload opens an alert; for the card it also
 * sets the sentinel.  The exported report and the static HTML are checked the same way from
 * pytest (tests/test_reliability_text.py).
 *
 * A run file from elsewhere (compile-profile import) may hold markup in any field: the last two tests
 * take a run with a payload in every field the loader accepts one in (tests/markup_runs.py, the same
 * runs tests/test_reliability_run_files.py opens in Chromium as the export, the job report and the
 * static HTML), as the card and as every tab of the panel's detail, beside two stored rows that cannot
 * be read, which the run list shows as unreadable with their ids while every other run still lists.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { openPanel, PANEL, runDetail, tabName } from './rundetail';

const HOSTILE_RUN = 'uihostile001'; // seeded by seed_runs.py
const NOTEBOOK = 'xss-card.ipynb';
const SENTINEL = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2;alert(2)">';
const DETAIL_TABS = [
  'Overview',
  'Compile',
  'Compiles',
  'Graph breaks',
  'Graphs',
  'Guards',
  'Kernels',
  'Lines'
];
const MARKUP_RUN = 'uimarkup0001'; // seed_runs.py --add-markup
const UNREADABLE_RUNS = ['uiunread0001', 'uiunread0002'];
const SEEDED_CPU_RUN = 'uicpu0000001';
const REPO = path.resolve(__dirname, '..', '..');

test.use({ autoGoto: true });

/**
 * A notebook whose one output is the card of a run: by default hostile_run() with the sentinel payload in
 * place of its own; `build` may instead be Python that binds `run` itself.
 */
function hostileNotebook(build?: string): string {
  const script = `
import json, sys
sys.path[:0] = [${JSON.stringify(path.join(REPO, 'tests'))}, ${JSON.stringify(path.join(REPO, 'kernel_side'))}]
from render_fixtures import HOSTILE, hostile_run
from compile_profile.profile_run import ProfileRun
from compile_profile.render.mime import mime_bundle
sentinel = ${JSON.stringify(SENTINEL)}
${
  build ??
  `text = hostile_run().to_json().replace(json.dumps(HOSTILE)[1:-1], json.dumps(sentinel)[1:-1])
run = ProfileRun.from_json(text)
assert sentinel in run.label`
}
cell = {"cell_type": "code", "execution_count": None, "id": "hostile", "metadata": {},
        "source": "%%compile_profile\\n" + run.cell_source,
        "outputs": [{"output_type": "display_data", "data": mime_bundle(run), "metadata": {}}]}
print(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
`;
  return execFileSync(process.env.CP_PYTHON!, ['-c', script], { encoding: 'utf-8' });
}

/** seed_runs.py on the server's store (playwright.config.js passes its paths in CP_SEED_ENV). */
function seed(...args: string[]): string {
  return execFileSync(process.env.CP_PYTHON!, [path.join(__dirname, '..', 'seed_runs.py'), ...args], {
    encoding: 'utf-8',
    env: { ...process.env, ...JSON.parse(process.env.CP_SEED_ENV!) }
  });
}

/** Open a notebook of one card and wait for the card. */
async function openCard(page: IJupyterLabPageFixture, notebook: string): Promise<Locator> {
  await page.contents.uploadContent(notebook, 'text', NOTEBOOK);
  await page.evaluate(async name => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('docmanager:open', { path: name });
  }, NOTEBOOK);
  const card = page.locator('.jp-NotebookPanel .cp-Card').first();
  await card.waitFor();
  return card;
}

/** Every tab of a run's detail, each graph picked, each kernel clicked, each chart hovered; the text each showed. */
async function visitEveryTab(detail: Locator): Promise<string> {
  const shown: string[] = [];
  for (const tab of DETAIL_TABS) {
    await detail.locator('.cp-Tab', { hasText: tabName(tab) }).click();
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
  return shown.join('\n');
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
  const card = await openCard(page, hostileNotebook());
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
  const text = await visitEveryTab(detail);
  // The payload is there, as characters, in the break reason, the graph code and the kernel source.
  expect(text).toContain('builtin: print <script>alert(1)</script><img src=x onerror=alert(1)>');
  expect(text.split('<script>alert(1)</script>').length - 1).toBeGreaterThanOrEqual(4);
  await expectNothingRan(page, dialogs);
});

/** The payload markup_runs.py puts in a field, as the page's text shows it once escaped. */
const marker = (n: number) => `window.__xss=${n}<`;

test('the card of a run with markup in every field shows it all as text', async ({ page }) => {
  const dialogs = watchDialogs(page);
  const build = `from markup_runs import markup_everywhere
from render_fixtures import cuda_run
_, run, placed = markup_everywhere(cuda_run())`;
  const card = await openCard(page, hostileNotebook(build));
  await expect(card.locator('.js-plotly-plot').first()).toBeVisible();
  const text = await card.innerText();
  expect(text.split('window.__xss=').length - 1).toBeGreaterThanOrEqual(5); // label, headline, variants, ...
  await expectNothingRan(page, dialogs);
  await page.contents.deleteFile(NOTEBOOK);
});

test('a run with markup in every field runs nothing in any tab; unreadable rows list beside the others', async ({
  page
}) => {
  const dialogs = watchDialogs(page);
  const payloads: number[] = JSON.parse(seed('--add-markup').trim().split('\n').pop()!);
  try {
    await openPanel(page);
    // The rows that cannot be read are listed, with their ids and why, and every other run still lists.
    const [notJson, wrongType] = UNREADABLE_RUNS.map(id =>
      page.locator(`${PANEL} .cp-RunItem[data-run-id="${id}"]`)
    );
    await expect(notJson.locator('.cp-Badge')).toHaveText('unreadable');
    await expect(notJson.locator('.cp-Unreadable')).toContainText(
      `run ${UNREADABLE_RUNS[0]} cannot be read: not JSON`
    );
    await expect(wrongType.locator('.cp-Unreadable')).toContainText(
      'cell_runs: expected an integer, got a string'
    );
    await expect(page.locator(`${PANEL} .cp-RunItem[data-run-id="${SEEDED_CPU_RUN}"]`)).toBeVisible();
    await expect(page.locator(`${PANEL} .cp-RunItem[data-run-id="${MARKUP_RUN}"]`)).toBeVisible();
    // Opening an unreadable run says why, as text, in its tab.
    await wrongType.click();
    const refused = page.locator(`#compile-profile-run-${UNREADABLE_RUNS[1]} .cp-Error`);
    await expect(refused).toContainText(`run ${UNREADABLE_RUNS[1]} in `);
    await expect(refused).toContainText('cannot be read (cell_runs: expected an integer');
    // The markup run: every tab, every graph, every kernel, every chart.
    await page.locator(`${PANEL} .cp-RunItem[data-run-id="${MARKUP_RUN}"]`).click();
    const detail = runDetail(page, MARKUP_RUN);
    await expect(detail).toBeVisible();
    const text = await visitEveryTab(detail);
    const shown = payloads.filter(n => text.includes(marker(n)));
    expect(shown.length).toBeGreaterThanOrEqual(Math.floor(payloads.length / 3)); // much of it, as characters
    await expectNothingRan(page, dialogs);
  } finally {
    seed('--remove', MARKUP_RUN, ...UNREADABLE_RUNS);
  }
});
