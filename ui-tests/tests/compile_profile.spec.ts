/**
 * compile-profile in a real JupyterLab and Chromium: the in-cell card (with its verdict and payback
 * sentences), the sidebar panel, kernel source, graph-break navigation, live updates, the dark
 * theme.  The server starts on a store seeded by seed_runs.py; screenshots go to test-artifacts/.
 * Colour helpers live in colours.ts.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';

import { expect, galata, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { luminance, normalizeColour } from './colours';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
const PANEL = '#compile-profile-panel';
const CPU_RUN = 'uicpu0000001';

test.use({ autoGoto: true });

async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-${name}.png`) });
}

async function openSeededNotebook(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(async () => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('docmanager:open', { path: 'seeded.ipynb' });
  });
  await page.locator('.jp-NotebookPanel .cp-Card').first().waitFor();
}

async function openPanel(page: IJupyterLabPageFixture, args: Record<string, string> = {}): Promise<void> {
  await page.evaluate(async a => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('compile-profile:open', a);
  }, args);
  await expect(page.locator(PANEL)).toBeVisible();
}

async function selectRun(page: IJupyterLabPageFixture, id: string, tab: string): Promise<void> {
  await page.locator(`${PANEL} .cp-RunItem[data-run-id="${id}"]`).click();
  await expect(page.locator(`${PANEL} .cp-Detail[data-run-id="${id}"]`)).toBeVisible();
  await page.locator(`${PANEL} .cp-Tab`, { hasText: tab }).click();
}

/** Where the notebook's cursor is: active cell index and the text of the cursor's line. */
async function notebookCursor(page: IJupyterLabPageFixture): Promise<{ index: number; line: number; text: string }> {
  return page.evaluate(() => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    const notebook = panel.content;
    const editor = notebook.activeCell.editor;
    const position = editor.getCursorPosition();
    return { index: notebook.activeCellIndex, line: position.line, text: editor.getLine(position.line) };
  });
}

test('the card renders in the cell with a speedup figure and a chart', async ({ page }) => {
  await openSeededNotebook(page);
  const card = page.locator('.jp-NotebookPanel .cp-Card').first();
  await expect(card.locator('.cp-Card-headline')).toContainText(/inductor\/default [\d.]+× slower: [\d.]+ ms → [\d.]+ ms/);
  await expect(card.locator('.cp-Badge')).toHaveText('0.95×');
  // Under the headline, the digest's verdict and payback sentences (issue 13; consistency.spec.ts
  // holds the panel's to Python's words).
  await expect(card.locator('.cp-Card-verdict')).toHaveText(/^compiled is /);
  await expect(card.locator('.cp-Card-payback')).not.toBeEmpty();
  await expect(card.locator('.cp-Card-warnings')).toContainText('compiled results differ from eager');
  await expect(card.locator('.js-plotly-plot .bars path').first()).toBeVisible();
  await shot(page, 'card-light');
});

test('the panel lists the runs newest first, as text', async ({ page }) => {
  await openSeededNotebook(page);
  await page.locator('.jp-NotebookPanel .cp-Card .cp-Card-open').first().click();
  await expect(page.locator(PANEL)).toBeVisible();
  const items = page.locator(`${PANEL} .cp-RunItem`);
  await expect(items).toHaveCount(6);
  await expect(items.nth(0)).toHaveAttribute('data-run-id', CPU_RUN);
  await expect(items.nth(0)).toContainText('seeded cpu run');
  await expect(items.nth(0)).toContainText('cpu: x86_64');
  // The card's button opened this run's detail.
  await expect(page.locator(`${PANEL} .cp-Detail[data-run-id="${CPU_RUN}"]`)).toBeVisible();
  // Markup in a label is shown as characters, never parsed.
  await expect(items.nth(2)).toContainText('<script>alert(1)</script>');
  await expect(page.locator(`${PANEL} script, ${PANEL} img[src="x"]`)).toHaveCount(0);
  await page.locator(`${PANEL} .cp-Check input`).check();
  await expect(items).toHaveCount(1); // only the seeded notebook's run
  await shot(page, 'panel-runs');
});

test('the kernel source of a C++ kernel shows, highlighted', async ({ page }) => {
  await openSeededNotebook(page);
  await openPanel(page);
  await selectRun(page, CPU_RUN, 'Kernels');
  await page.locator(`${PANEL} tr[data-kernel="cpp_fused_add_relu_0"]`).click();
  const view = page.locator(`${PANEL} .cp-CodeView`);
  await expect(view.locator('.cp-CodeView-lang')).toHaveText('C++');
  await expect(view.locator('.cp-CodeView-source')).toContainText('extern "C"');
  // CodeMirror's highlighter wrapped tokens in styled spans.
  expect(await view.locator('.cp-CodeView-source span[class]').count()).toBeGreaterThan(5);
  // Opening the sidebar narrowed the notebook: the card's chart followed, and kept its height.
  const card = page.locator('.jp-NotebookPanel .cp-Card').first();
  await expect
    .poll(() =>
      card.evaluate(node => {
        const svg = node.querySelector('.js-plotly-plot svg.main-svg')!.getBoundingClientRect();
        return svg.right <= node.getBoundingClientRect().right + 1 && svg.height > 200;
      })
    )
    .toBe(true);
  await shot(page, 'panel-cpp-kernel');
});

test('clicking a graph break moves the notebook to its cell and line', async ({ page }) => {
  await openSeededNotebook(page);
  await page.evaluate(() => {
    (window as any).jupyterapp.shell.currentWidget.content.activeCellIndex = 4;
  });
  await openPanel(page, { runId: CPU_RUN, tab: 'Graph breaks' });
  const brk = page.locator(`${PANEL} .cp-Break-line`).first();
  await expect(brk).toHaveText('cell line 5');
  await brk.click();
  await expect.poll(() => notebookCursor(page)).toEqual({ index: 2, line: 5, text: 'print(y.sum())' });
  await shot(page, 'graph-break-navigation');
});

test('a thousand kernels page quickly', async ({ page }) => {
  await openPanel(page);
  await selectRun(page, 'uibig0000001', 'Kernels');
  await expect(page.locator(`${PANEL} .cp-KernelTable tbody tr`)).toHaveCount(50);
  await expect(page.locator(`${PANEL} .cp-Pager`)).toContainText('page 1 of 20 · 1000 kernels');
  const started = Date.now();
  await page.locator(`${PANEL} .cp-KernelTable th`, { hasText: 'kernel' }).click();
  await expect(page.locator(`${PANEL} .cp-KernelTable tbody tr`).first()).toHaveAttribute('data-kernel', 'triton_poi_fused_0');
  await page.locator(`${PANEL} .cp-Pager button`, { hasText: 'next' }).click();
  await expect(page.locator(`${PANEL} .cp-Pager`)).toContainText('page 2 of 20');
  expect(Date.now() - started).toBeLessThan(5000);
});

test('comparing two runs shows the server\'s deltas and kernel matches', async ({ page }) => {
  await openPanel(page);
  await page.locator(`${PANEL} .cp-Views .cp-Tab`, { hasText: 'Compare' }).click();
  await page.locator(`${PANEL} select[aria-label="before"]`).selectOption('uicuda000001');
  await page.locator(`${PANEL} select[aria-label="after"]`).selectOption('uibig0000001');
  const kernels = page.locator(`${PANEL} .cp-CompareTable tr`, { has: page.locator('th', { hasText: /^kernels$/ }) });
  await expect(kernels.locator('td')).toHaveText(['3', '1000', '+997']);
  // Matched by name without Inductor's counter (digest/compare.py): a thousand of one kernel.
  await expect(page.locator(`${PANEL} .cp-Compare h4`).first()).toHaveText('Kernels added');
  await expect(page.locator(`${PANEL} .cp-Compare li`).first()).toHaveText('triton_poi_fused ×1000');
  await shot(page, 'panel-compare');
});

test('a new run appears without a refresh, and the list survives a reload', async ({ page }) => {
  await openPanel(page);
  await expect(page.locator(`${PANEL} .cp-RunItem`)).toHaveCount(6);
  execFileSync(process.env.CP_PYTHON!, [path.join(__dirname, '..', 'seed_runs.py'), '--add', 'uiadded00001'], {
    env: { ...process.env, ...JSON.parse(process.env.CP_SEED_ENV!) }
  });
  await expect(page.locator(`${PANEL} .cp-RunItem`).first()).toHaveAttribute('data-run-id', 'uiadded00001', {
    timeout: 15000
  });
  await page.reload();
  await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
  await openPanel(page);
  await expect(page.locator(`${PANEL} .cp-RunItem`)).toHaveCount(7);
});

test('the dark theme applies to the panel, the card and their charts', async ({ page }) => {
  await openSeededNotebook(page);
  await openPanel(page, { runId: CPU_RUN, tab: 'Overview' });
  await page.theme.setDarkTheme();
  expect(await page.evaluate(() => document.body.dataset.jpThemeLight)).toBe('false');
  const fontColour = await page.evaluate(() =>
    getComputedStyle(document.body).getPropertyValue('--jp-ui-font-color1').trim()
  );
  // plotly writes the title's colour as an inline fill (its alpha as fill-opacity): the dark theme's text colour.
  const cardTitle = page.locator('.jp-NotebookPanel .cp-Card .js-plotly-plot .gtitle').first();
  await expect
    .poll(async () => normalizeColour(page, (await cardTitle.evaluate(el => (el as SVGElement).style.fill)) || ''))
    .toBe(await normalizeColour(page, fontColour));
  const panelBackground = await page.locator(PANEL).evaluate(el => getComputedStyle(el).backgroundColor);
  expect(luminance(panelBackground)).toBeLessThan(0.3);
  await expect(page.locator(`${PANEL} .cp-ChartHost[data-chart="variants"] .js-plotly-plot`)).toBeVisible();
  await shot(page, 'dark-theme');
  await page.theme.setLightTheme();
});

const REAL_CELL = [
  "%%compile_profile --label 'ui real run' --repeat 5 --warmup 1 --budget 2",
  'import torch',
  'x = torch.randn(256, 256)',
  'y = torch.relu(x @ x) + 1',
  'print(y.shape)',
  'z = (y * 2).softmax(-1)'
].join('\n');

test('a real %%compile_profile cell: card, panel, C++ kernel source, graph break', async ({ page, tmpPath }) => {
  test.setTimeout(240 * 1000); // compiles on CPU; seconds with a warm Inductor cache
  // Saved under its final name before a kernel starts: the kernel records the path it started with.
  await page.evaluate(
    async ({ source, path: notebookPath }) => {
      const app = (window as any).jupyterapp;
      const code = (text: string) => ({ cell_type: 'code', source: text, metadata: {}, outputs: [], execution_count: null });
      await app.serviceManager.contents.save(notebookPath, {
        type: 'notebook',
        format: 'json',
        content: {
          cells: [code('%load_ext compile_profile'), code(source), code('after = 1')],
          metadata: { kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' } },
          nbformat: 4,
          nbformat_minor: 5
        }
      });
      await app.commands.execute('docmanager:open', { path: notebookPath });
    },
    { source: REAL_CELL, path: `${tmpPath}/real.ipynb` }
  );
  await page.locator('.jp-NotebookPanel .jp-Cell').nth(2).waitFor();
  await page.notebook.run();
  const card = page.locator('.jp-NotebookPanel .cp-Card').first();
  await expect(card).toBeVisible({ timeout: 180 * 1000 });
  await expect(card.locator('.cp-Card-headline')).toContainText(/[\d.]+× (faster|slower): [\d.]+ \S?s → [\d.]+ \S?s/);
  await expect(card.locator('.cp-Badge')).toHaveText(/^[\d.]+×$/);
  await expect(card.locator('.js-plotly-plot .bars path').first()).toBeVisible();
  const runId = await card.getAttribute('data-run-id');
  expect(runId).toMatch(/^[A-Za-z0-9_-]+$/);
  await shot(page, 'real-card');

  await card.locator('.cp-Card-open').click();
  await expect(page.locator(`${PANEL} .cp-RunItem`).first()).toHaveAttribute('data-run-id', runId!);
  await page.locator(`${PANEL} .cp-Check input`).check();
  await expect(page.locator(`${PANEL} .cp-RunItem`)).toHaveCount(1); // the kernel reported this notebook's path
  await expect(page.locator(`${PANEL} .cp-Detail[data-run-id="${runId}"]`)).toBeVisible();

  await page.locator(`${PANEL} .cp-Tab`, { hasText: 'Kernels' }).click();
  await page.locator(`${PANEL} .cp-KernelTable tbody tr:has(td:text-is("C++"))`).first().click();
  await expect(page.locator(`${PANEL} .cp-CodeView-lang`)).toHaveText('C++');
  await expect(page.locator(`${PANEL} .cp-CodeView-source`)).toContainText('extern "C"');
  await shot(page, 'real-cpp-kernel');

  await page.evaluate(() => {
    (window as any).jupyterapp.shell.currentWidget.content.activeCellIndex = 2;
  });
  await page.locator(`${PANEL} .cp-Tab`, { hasText: 'Graph breaks' }).click();
  await expect(page.locator(`${PANEL} .cp-Break-line`).first()).toHaveText('cell line 5');
  await page.locator(`${PANEL} .cp-Break-line`).first().click();
  await expect.poll(() => notebookCursor(page)).toEqual({ index: 1, line: 4, text: 'print(y.shape)' });
  await shot(page, 'real-graph-break');
});

// Keep the import of galata used for its types when the helpers change.
void galata;
