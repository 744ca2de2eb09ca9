/**
 * A run's detail as a user meets it at 1600×1000, in the light and the dark theme (issue 23, item 5):
 * the Kernels table a row a line however long its names and op lists, a tooltip on every header and
 * chart title, the tabs by keyboard, Copy / Export / Re-run, a colour per part of the breakdown, no
 * cloud button on a chart, the empty states of runs that stopped before Dynamo, and the profile's
 * stderr lines folded in the card.  Screenshots go to test-artifacts/ui-detail-*.png.
 */
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { openRun } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
const WIDE_RUN = 'uiwide000001'; // 33 kernels, long names and op lists (seed_runs.py wide_run)
const WIDE_LINE = "%%compile_profile --mode default --mode max-autotune --label 'a wide kernel table'";
const CPU_RUN = 'uicpu0000001';
const FAILED_RUN = 'uifailed0001';
const INTERRUPTED_RUN = 'uiintr000001';
const THEMES = ['light', 'dark'] as const;

test.use({ autoGoto: true, viewport: { width: 1600, height: 1000 } });

interface IExpected {
  runs: { id: string }[];
  stopped: Record<string, { graph_break_empty_text: string; warnings: string[] }>;
  logs: { lines: string[]; text: string };
}

/** Read when a test runs: the seed script writes it as the server starts. */
function expected(): IExpected {
  const db = JSON.parse(process.env.CP_SEED_ENV!).COMPILE_PROFILE_DB as string;
  return JSON.parse(fs.readFileSync(path.join(path.dirname(db), 'expected.json'), 'utf-8'));
}

/** The seeded notebook as seed_runs.py wrote it. */
function seededNotebook(): { cells: { source: string }[] } {
  const root = JSON.parse(process.env.CP_SEED_ENV!).JUPYTERLAB_GALATA_ROOT_DIR as string;
  return JSON.parse(fs.readFileSync(path.join(root, 'seeded.ipynb'), 'utf-8'));
}

async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-detail-${name}.png`) });
}

async function setTheme(page: IJupyterLabPageFixture, theme: 'light' | 'dark'): Promise<void> {
  const light = (await page.evaluate(() => document.body.dataset.jpThemeLight)) !== 'false';
  if (theme === 'dark' && light) {
    await page.theme.setDarkTheme();
  } else if (theme === 'light' && !light) {
    await page.theme.setLightTheme();
  }
}

/** Close every main-area tab but the launcher's neighbours: the next theme opens the run afresh. */
async function closeRun(page: IJupyterLabPageFixture, id: string): Promise<void> {
  await page.evaluate(runId => {
    const widgets = Array.from((window as any).jupyterapp.shell.widgets('main') as Iterable<any>);
    widgets.find(w => w.id === `compile-profile-run-${runId}`)?.close();
  }, id);
}

/** The height of one line of the table's text: what a row needs, its padding and border aside. */
async function lineHeight(cell: Locator): Promise<number> {
  return cell.evaluate(td => {
    const style = getComputedStyle(td);
    const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
    return line + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + 1;
  });
}

test('the Kernels table is a row a line at 1600×1000, long names and op lists cut with the whole in a title', async ({
  page
}) => {
  for (const theme of THEMES) {
    await setTheme(page, theme);
    const detail = await openRun(page, WIDE_RUN, 'Kernels');
    const rows = detail.locator('.cp-KernelTable tbody tr');
    await expect(rows).toHaveCount(33);
    const needed = await lineHeight(rows.first().locator('td').first());
    const heights = await rows.evaluateAll(trs => trs.map(tr => tr.getBoundingClientRect().height));
    console.log(
      `${theme}: one line needs ${needed.toFixed(1)} px; rows ${Math.min(...heights)}-${Math.max(...heights)} px`
    );
    // Every row is one line: the ATen-ops column once shrank to a letter, and a row to 425 px.
    expect(Math.max(...heights)).toBeLessThanOrEqual(Math.ceil(needed) + 1);
    // The longest op list is cut, its whole in the cell's title; a name likewise.
    const ops = rows.nth(7).locator('td[data-field="aten_ops"]');
    const title = (await ops.getAttribute('title')) ?? '';
    expect(title.split(', ').length).toBe(8);
    expect(await ops.evaluate(td => td.scrollWidth > td.clientWidth)).toBe(true);
    const name = rows.nth(1).locator('td.cp-KernelName');
    expect(await name.getAttribute('title')).toMatch(/^triton_\w+_fused_\w+$/);
    // The name column keeps a readable width beside the others: at least 18 characters of it show.
    const shown = await name.evaluate(td => td.clientWidth / parseFloat(getComputedStyle(td).fontSize));
    expect(shown).toBeGreaterThan(18 * 0.55);
    // The table and the source beside it fit the tab: no sideways scroll at this size.
    const scroll = detail.locator('.cp-KernelScroll');
    expect(await scroll.evaluate(el => el.scrollWidth <= el.clientWidth)).toBe(true);
    await shot(page, `kernels-${theme}`);
    await closeRun(page, WIDE_RUN);
  }
  await setTheme(page, 'light');
});

test('every table header and chart title of the detail says what it shows on hover', async ({ page }) => {
  const run = expected().runs[0].id; // two variants, a breakdown, lines, kernels with rates
  for (const tab of ['Overview', 'Compile', 'Kernels', 'Lines']) {
    const detail = await openRun(page, run, tab);
    const body = detail.locator('.cp-TabBody');
    const headers = body.locator('th');
    await expect(headers.first()).toBeVisible();
    // every header with text has a title of its own
    const untitled = await headers.evaluateAll(ths =>
      ths.filter(th => th.textContent!.trim() && !th.getAttribute('title')).map(th => th.textContent)
    );
    expect(untitled, `${tab}: headers without a tooltip`).toEqual([]);
    const charts = body.locator('.cp-ChartHost');
    for (const chart of await charts.all()) {
      const title = chart.locator('.gtitle');
      await expect(title).toBeVisible();
      await expect(title.locator('title')).toHaveText(/\w{4,}/);
      // it takes the pointer (plotly's layers take none), so the hover shows it
      expect(await title.evaluate(el => getComputedStyle(el).pointerEvents)).not.toBe('none');
    }
  }
  const detail = await openRun(page, run, 'Kernels');
  await expect(detail.locator('.cp-KernelTable th[data-field="aten_ops"]')).toHaveAttribute(
    'title',
    'the ATen operators Inductor fused into this kernel'
  );
});

test("the detail's tabs by keyboard: one tab stop, the arrow keys, Home and End, focus outlined", async ({
  page
}) => {
  const detail = await openRun(page, CPU_RUN, 'Overview');
  const tabs = detail.locator('[role="tablist"] [role="tab"]');
  await expect(tabs).toHaveCount(8);
  await expect(detail.locator('[role="tab"][tabindex="0"]')).toHaveCount(1);
  const selected = detail.locator('[role="tab"][aria-selected="true"]');
  await expect(selected).toHaveText('Overview');
  // Tab from the actions' last button enters the row at the chosen tab
  await detail.locator('.cp-Actions .cp-Action').last().focus(); // Re-run, or Bisect where the run offers it
  await page.keyboard.press('Tab');
  await expect(selected).toBeFocused();
  expect(await selected.evaluate(el => getComputedStyle(el).outlineStyle)).not.toBe('none');
  await page.keyboard.press('ArrowRight');
  await expect(selected).toHaveText('Compile');
  await expect(selected).toBeFocused();
  await expect(detail.locator('.cp-TabBody')).toHaveAttribute('data-tab', 'Compile');
  await page.keyboard.press('End');
  await expect(selected).toHaveText('Lines');
  await page.keyboard.press('ArrowRight'); // wraps round
  await expect(selected).toHaveText('Overview');
  await page.keyboard.press('ArrowLeft');
  await expect(selected).toHaveText('Lines');
  await page.keyboard.press('Home');
  await expect(selected).toHaveText('Overview');
  // the panel names the tab that labels it
  const panelId = await detail.locator('[role="tabpanel"]').getAttribute('aria-labelledby');
  expect(await selected.getAttribute('id')).toBe(panelId);
  // Enter on a focused tab chooses it, as a click does
  await tabs.nth(6).focus();
  await page.keyboard.press('Enter');
  await expect(detail.locator('.cp-TabBody')).toHaveAttribute('data-tab', 'Kernels');
  // the Kernels table's headers sort from the keyboard too: Tab to one, Enter
  const kernelHeader = detail.locator('.cp-KernelTable th[data-field="name"]');
  await kernelHeader.focus();
  await page.keyboard.press('Enter');
  await expect(kernelHeader).toHaveAttribute('aria-sort', /ascending|descending/);
  const first = await kernelHeader.getAttribute('aria-sort');
  await page.keyboard.press(' ');
  await expect(kernelHeader).toHaveAttribute('aria-sort', first === 'ascending' ? 'descending' : 'ascending');
  await shot(page, 'tabs-focus');
});

test('Copy gives the %%compile_profile cell the run profiled, with its options', async ({ page }) => {
  const detail = await openRun(page, CPU_RUN, 'Overview');
  // What JupyterLab's Clipboard put on the copy event, read after it (a listener on window runs last).
  await page.evaluate(() => {
    window.addEventListener('copy', e => {
      (window as any).__copied = e.clipboardData?.getData('text/plain');
    });
  });
  await detail.locator('.cp-Action[data-action="copy"]').click();
  const copied = await page.evaluate(() => (window as any).__copied as string);
  // the seeded notebook's cell: the run's code under the line its options (here its label) make
  const cell = seededNotebook().cells[2].source as string;
  expect(cell.startsWith("%%compile_profile --label 'seeded cpu run'\n")).toBe(true);
  expect(copied.trimEnd()).toBe(cell.trimEnd());
  await expect(detail.locator('.cp-ActionNote')).toContainText('Copied a %%compile_profile cell');
});

test("Export downloads the run's HTML report", async ({ page }) => {
  const detail = await openRun(page, WIDE_RUN, 'Overview');
  const downloading = page.waitForEvent('download');
  await detail.locator('.cp-Action[data-action="export"]').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`compile-profile-${WIDE_RUN}.html`);
  const saved = path.join(ARTIFACTS, `ui-detail-report-${WIDE_RUN}.html`);
  await download.saveAs(saved);
  const html = fs.readFileSync(saved, 'utf-8');
  expect(html).toMatch(/^<!DOCTYPE html>/i);
  expect(html).toContain('a wide kernel table');
  expect(html).toContain('triton_per_fused_'); // its kernels
  await expect(detail.locator('.cp-ActionNote')).toHaveText(
    `Exported the report as compile-profile-${WIDE_RUN}.html.`
  );
  // The file opens on its own, from disk, and draws its charts.
  const report = await page.context().newPage();
  await report.goto(`file://${saved}`);
  await expect(report.locator('.js-plotly-plot').first()).toBeVisible();
  await report.screenshot({ path: path.join(ARTIFACTS, 'ui-detail-report.png') });
  await report.close();
});

test('a run whose compile failed says where, exports its reproducer and offers Bisect; others offer neither', async ({
  page
}) => {
  const failed = (expected() as any).compile_failed as {
    id: string;
    reproducer: string;
    warning: string;
    bisect_offer: string;
  };
  const detail = await openRun(page, failed.id, 'Overview');
  await expect(detail).toContainText(failed.warning);
  const downloading = page.waitForEvent('download');
  await detail.locator('.cp-Action[data-action="reproducer"]').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`repro-${failed.id}.py`);
  const saved = path.join(ARTIFACTS, `ui-detail-repro-${failed.id}.py`);
  await download.saveAs(saved);
  expect(fs.readFileSync(saved, 'utf-8')).toBe(failed.reproducer);
  await expect(detail.locator('.cp-ActionNote')).toHaveText(
    `Exported the reproducer as repro-${failed.id}.py: run it with python repro-${failed.id}.py.`
  );
  await shot(page, 'compile-failed');
  // Bisect says on its button what --bisect would find, and runs the cell only where its notebook is open
  const bisect = detail.locator('.cp-Action[data-action="bisect"]');
  expect(failed.bisect_offer).toContain('where its compile starts failing');
  expect(await bisect.getAttribute('title')).toContain(failed.bisect_offer);
  await bisect.click();
  await expect(detail.locator('.cp-ActionNote')).toContainText(
    'Not re-run: a notebook holding its cell is not open'
  );
  const other = await openRun(page, WIDE_RUN, 'Overview');
  await expect(other.locator('.cp-Action[data-action="export"]')).toBeVisible();
  await expect(other.locator('.cp-Action[data-action="reproducer"]')).toHaveCount(0);
  await expect(other.locator('.cp-Action[data-action="bisect"]')).toHaveCount(0);
});

test('Re-run runs the cell in the notebook that holds it, and says why not when it was edited', async ({
  page,
  tmpPath
}) => {
  const detail = await openRun(page, WIDE_RUN, 'Overview');
  const rerun = detail.locator('.cp-Action[data-action="rerun"]');
  const note = detail.locator('.cp-ActionNote');
  await rerun.click();
  await expect(note).toContainText('Not re-run: a notebook holding its cell is not open');
  await expect(note).toHaveClass(/cp-mod-bad/);

  // A notebook holding the run's cell as it ran: the seeded run's code (seed_runs.py gives both runs the
  // fixtures' cell) under the line the wide run's variants (default and max-autotune) and label make
  const seededCell = seededNotebook().cells[2].source as string;
  const body = seededCell.slice(seededCell.indexOf('\n') + 1);
  await page.evaluate(
    async ({ source, notebookPath }) => {
      const app = (window as any).jupyterapp;
      const code = (text: string) => ({
        cell_type: 'code',
        source: text,
        metadata: {},
        outputs: [],
        execution_count: null
      });
      await app.serviceManager.contents.save(notebookPath, {
        type: 'notebook',
        format: 'json',
        content: {
          cells: [code('first = 1'), code(source)],
          metadata: {
            kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' }
          },
          nbformat: 4,
          nbformat_minor: 5
        }
      });
      await app.commands.execute('docmanager:open', { path: notebookPath });
    },
    {
      source: `${WIDE_LINE}\n${body}`,
      notebookPath: `${tmpPath}/rerun.ipynb`
    }
  );
  const cell = page.locator('.jp-NotebookPanel .jp-CodeCell').nth(1);
  await cell.waitFor();
  await page.locator('.lm-TabBar-tab', { hasText: 'a wide kernel table' }).click();
  await rerun.click();
  // The notebook comes to the front, and its second cell ran in its kernel: the kernel has no
  // compile_profile loaded (%load_ext was never run), so IPython answers that the magic is unknown.
  await expect(cell.locator('.jp-InputPrompt')).toHaveText(/\[\d+\]:/, { timeout: 60 * 1000 });
  await expect(cell.locator('.jp-OutputArea')).toContainText('compile_profile');
  await expect(page.locator('.jp-NotebookPanel .jp-CodeCell').nth(0).locator('.jp-InputPrompt')).toHaveText(
    '[ ]:'
  );
  await expect(note).toHaveText(/^Running cell 2 of .*rerun\.ipynb again\.$/);
  await shot(page, 'rerun');

  // Its line edited: the cell no longer is the run's, and Re-run says so rather than run other options
  await page.evaluate(() => {
    const app = (window as any).jupyterapp;
    const panel = app.shell.currentWidget;
    const model = panel.content.widgets[1].model.sharedModel;
    model.setSource(model.getSource().replace('--mode max-autotune ', ''));
  });
  await page.locator('.lm-TabBar-tab', { hasText: 'a wide kernel table' }).click();
  await rerun.click();
  await expect(note).toContainText('Not re-run: cell 2 of');
  await expect(note).toContainText('was edited since');
});

test('the breakdown gives each part a colour of its own, and no chart offers plotly cloud, in both themes', async ({
  page
}) => {
  const run = expected().runs[0].id;
  for (const theme of THEMES) {
    await setTheme(page, theme);
    const detail = await openRun(page, run, 'Overview');
    const chart = detail.locator('.cp-ChartHost[data-chart="breakdown"] .js-plotly-plot');
    await expect(chart.locator('.bars path').first()).toBeVisible();
    const parts = await chart.evaluate(gd =>
      ((gd as any)._fullData as any[]).map(t => ({
        part: t.meta?.part as string,
        colour: String(t.marker.color)
      }))
    );
    expect(parts.map(p => p.part)).toEqual(
      expect.arrayContaining(['aten', 'outside', 'generated', 'library'])
    );
    // pairwise distinct: ATen's kernels and the time outside kernels once took the same green
    expect(new Set(parts.map(p => p.colour.toLowerCase())).size, JSON.stringify(parts)).toBe(parts.length);
    // and drawn so: the bars' fills differ trace by trace
    const fills = await chart.evaluate(gd =>
      Array.from(gd.querySelectorAll('g.trace.bars')).map(
        g => (g.querySelector('path') as SVGElement | null)?.style.fill ?? ''
      )
    );
    expect(new Set(fills.filter(Boolean)).size).toBe(fills.filter(Boolean).length);
    // The modebar's own buttons are there, the cloud's and Chart Studio's are not, on every chart
    await chart.hover();
    const modebar = detail.locator('.modebar').first();
    await expect(modebar.locator('.modebar-btn').first()).toBeAttached();
    await expect(detail.locator('.modebar-btn[data-title*="Download plot"]').first()).toBeAttached();
    await expect(
      detail.locator('.modebar-btn[data-title*="Chart Studio"], .modebar-btn[data-title*="cloud" i]')
    ).toHaveCount(0);
    await shot(page, `breakdown-${theme}`);
    await closeRun(page, run);
  }
  await setTheme(page, 'light');
});

test('runs that stopped before Dynamo say so: failed and interrupted, in both themes', async ({ page }) => {
  const words = expected().stopped;
  for (const theme of THEMES) {
    await setTheme(page, theme);
    for (const id of [FAILED_RUN, INTERRUPTED_RUN]) {
      const detail = await openRun(page, id, 'Graph breaks');
      const empty = detail.locator('.cp-TabBody .cp-Empty');
      await expect(empty).toHaveText(words[id].graph_break_empty_text);
      expect(words[id].graph_break_empty_text).toMatch(/before Dynamo traced the cell/);
      await detail.locator('[role="tab"]', { hasText: 'Overview' }).click();
      for (const warning of words[id].warnings) {
        await expect(detail.locator('.cp-Warnings li', { hasText: warning })).toHaveCount(1);
      }
      await shot(page, `${id === FAILED_RUN ? 'failed' : 'interrupted'}-${theme}`);
      await closeRun(page, id);
    }
  }
  expect(words[INTERRUPTED_RUN].warnings.join('\n')).toContain('interrupted before anything was compiled');
  await setTheme(page, 'light');
});

test("the card folds the profile's stderr lines under their count, as text", async ({ page }) => {
  const { lines, text } = expected().logs;
  await page.evaluate(async () => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('docmanager:open', { path: 'seeded.ipynb' });
  });
  const card = page.locator('.jp-NotebookPanel .cp-Card').first();
  const fold = card.locator('details.cp-Card-logs');
  await expect(fold.locator('summary')).toHaveText(text);
  expect(text).toMatch(/^14 lines logged to stderr while profiling, 3 different/);
  await expect(fold.locator('pre')).toBeHidden(); // folded
  await fold.locator('summary').click();
  await expect(fold.locator('pre')).toBeVisible();
  expect(await fold.locator('pre').textContent()).toBe(lines.join('\n'));
  await expect(fold.locator('b')).toHaveCount(0); // the markup in a line is text
  // and nothing of the profile's shows as a stderr box in the cell
  const cell = page.locator('.jp-NotebookPanel .jp-CodeCell', { has: card });
  await expect(cell.locator('[data-mime-type="application/vnd.jupyter.stderr"]')).toHaveCount(0);
  // the card's chart offers no cloud either
  await card.locator('.js-plotly-plot').hover();
  await expect(card.locator('.modebar-btn[data-title*="Download plot"]')).toBeAttached();
  await expect(
    card.locator('.modebar-btn[data-title*="Chart Studio"], .modebar-btn[data-title*="cloud" i]')
  ).toHaveCount(0);
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'card-logs');
});

for (const theme of THEMES) {
  test(`the Compile tab lays each compile on its timeline, phases nested, a colour per part (${theme})`, async ({
    page
  }) => {
    await setTheme(page, theme);
    const detail = await openRun(page, 'uicuda000001', 'Compile');
    // the digest's rows: each compile, when it ran, its time, its largest phases and its cache lookups
    const rows = detail.locator('.cp-CompileTimeline tbody tr');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0).locator('td')).toHaveText([
      '0/0',
      'first call',
      '10 s',
      'backend_compile 9 s, inductor_compile 8.2 s, code_gen 7.5 s',
      'FX graph: 1 miss (full_miss); AOTAutograd: 1 miss (full_miss)'
    ]);
    await expect(detail.locator('.cp-Compile > table').first()).toContainText(
      'first call 12.9 s: 12.1 s of it (94%) compiling 2 frames (0/0 10 s, 1/0 2.1 s)'
    );
    const chart = detail.locator('.cp-ChartHost[data-chart="compile_timeline"] .js-plotly-plot');
    await expect(chart.locator('.bars path').first()).toBeVisible();
    // nested: a deeper phase is a thinner bar inside the one that holds it, on the same compile's row
    const bars = await chart.evaluate(gd =>
      ((gd as any)._fullData as any[]).flatMap(t =>
        (t.text as string[]).map((name, i) => ({ name, row: t.y[i], width: t.width[i], part: t.name }))
      )
    );
    const width = (name: string) => bars.find(b => b.name === name && b.row === '0/0')!.width;
    expect(width('dynamo')).toBeGreaterThan(width('backend_compile'));
    expect(width('backend_compile')).toBeGreaterThan(width('inductor_compile'));
    expect(width('inductor_compile')).toBeGreaterThan(width('code_gen'));
    // one colour per part of the stack, drawn so
    const fills = await chart.evaluate(gd =>
      Array.from(gd.querySelectorAll('g.trace.bars')).map(
        g => (g.querySelector('path') as SVGElement | null)?.style.fill ?? ''
      )
    );
    expect(new Set(fills.filter(Boolean)).size).toBe(new Set(bars.map(b => b.part)).size);
    await detail.locator('.cp-ChartHost[data-chart="compile_timeline"]').scrollIntoViewIfNeeded();
    await shot(page, `compile-timeline-${theme}`);
    await closeRun(page, 'uicuda000001');
    await setTheme(page, 'light');
  });
}
