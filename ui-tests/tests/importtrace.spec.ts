/**
 * The run list's "Import TORCH_TRACE…" (issue 25, item 4): a path on the server, relative to its root, read into
 * the store by POST runs/import-trace (what `compile-profile import-trace` does); the list refreshes and the new
 * run opens. A path that holds no trace is refused with the server's words, as text, and nothing changes. The
 * trace is tests/import_trace_fixtures/script (a script's log with two graph breaks and two recompiles), its
 * script copied to the server's root, where the import looks for it. Then the Overview of a run profiled over a
 * sequence of inputs of two shapes (seed_runs.py --add-inputs), whose input-signature table is looked at.
 * Screenshots at 1600×1000, light and dark: test-artifacts/ui-import-trace-*.png and ui-inputs-overview-*.png.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { openPanel, openRun, PANEL, runDetail } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
const FIXTURES = path.resolve(__dirname, '..', '..', 'tests', 'import_trace_fixtures');
const INPUTS_RUN = 'uiinputs0001';

test.use({ autoGoto: true, viewport: { width: 1600, height: 1000 } });

function seed(...args: string[]): void {
  execFileSync(process.env.CP_PYTHON!, [path.join(__dirname, '..', 'seed_runs.py'), ...args], {
    env: { ...process.env, ...JSON.parse(process.env.CP_SEED_ENV!) }
  });
}

function serverRoot(): string {
  return JSON.parse(process.env.CP_SEED_ENV!).JUPYTERLAB_GALATA_ROOT_DIR as string;
}

async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-${name}.png`) });
}

/** Click Import TORCH_TRACE…, check what the dialog offers, type `typed` and press Import. */
async function importTrace(
  page: IJupyterLabPageFixture,
  typed: string,
  offered = '',
  screenshot = ''
): Promise<void> {
  await page.locator(`${PANEL} .cp-ImportTrace`).click();
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('.jp-Dialog-header')).toHaveText('Import TORCH_TRACE');
  const input = dialog.locator('input');
  await expect(input).toHaveValue(offered);
  await input.fill(typed);
  if (screenshot) {
    await shot(page, screenshot);
  }
  await dialog.locator('button', { hasText: 'Import' }).click();
  await expect(dialog).toHaveCount(0);
}

test("a script's TORCH_TRACE imported from the panel opens as a run; a bad path is refused as text", async ({
  page
}) => {
  const root = serverRoot();
  fs.cpSync(path.join(FIXTURES, 'script'), path.join(root, 'traces', 'script'), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'record.py'), path.join(root, 'record.py'));
  await openPanel(page);
  const items = page.locator(`${PANEL} .cp-RunItem`);
  await expect(items.first()).toBeVisible();
  const before = await items.count();
  const notice = page.locator(`${PANEL} .cp-ImportNotice`);

  // a path that is not there, with markup in it: the server's words, as text, naming the path as typed; one message
  // for every path that holds nothing to import (missing, outside the root, no log), which says nothing of what is there
  const hostile = 'no trace/<img src=x onerror="window.__cpImportXss=1">';
  const nothing = (typed: string) =>
    `nothing to import at ${typed}: give a TORCH_TRACE directory or log (*.log, *.log.gz) under the server's root ` +
    'directory, as a path relative to it';
  await importTrace(page, hostile);
  await expect(notice).toHaveText(`Import TORCH_TRACE failed: ${nothing(hostile)} ✕`);
  await expect(notice).toHaveAttribute('role', 'alert');
  await expect(page.locator(`${PANEL} img`)).toHaveCount(0);
  expect(await page.evaluate(() => (window as any).__cpImportXss)).toBeUndefined();
  // nothing typed: what to give; a directory without logs: the server says so
  await importTrace(page, '   ', hostile); // the failed path is offered again, to fix
  await expect(notice).toContainText('Give the path of a TORCH_TRACE directory or log on the server');
  fs.mkdirSync(path.join(root, 'empty-trace'), { recursive: true });
  await importTrace(page, 'empty-trace', hostile);
  await expect(notice).toContainText(nothing('empty-trace'));
  await expect(items).toHaveCount(before); // nothing lost, nothing added

  await importTrace(page, 'traces/script', 'empty-trace', 'import-trace-dialog');
  await expect(notice).toHaveText('Imported 1 run from traces/script: no timings, as a trace has none. ✕');
  await expect(notice).toHaveAttribute('role', 'status');
  await expect(items).toHaveCount(before + 1);
  const item = items.filter({ hasText: 'TORCH_TRACE of record.py' });
  await expect(item).toHaveCount(1);
  const runId = (await item.getAttribute('data-run-id'))!;
  try {
    // the first new run opened in a main-area tab, and the list marks it
    const detail = runDetail(page, runId);
    await expect(detail).toBeVisible();
    await expect(item).toHaveClass(/cp-mod-selected/);
    await expect(detail).toContainText('from a TORCH_TRACE: no timings');
    await expect(detail).toContainText(path.join(root, 'traces', 'script', 'trace.log.gz'));
    // what a trace has not is said once, not drawn as empty timing charts; no cell to copy or re-run
    await expect(detail.locator('.cp-MemoryNote')).toHaveText(
      'peak memory: not in a TORCH_TRACE (nothing was measured)'
    );
    await expect(
      detail.locator('[data-chart="variants"], [data-chart="samples"], .cp-Chart-missing')
    ).toHaveCount(0);
    await expect(detail.locator('.cp-Action')).toHaveText(['Export report']);
    await shot(page, 'import-trace-light');
    await detail.locator('.cp-Tabs .cp-Tab', { hasText: 'Graph breaks' }).click();
    // the script was found under the server's root: the break is at its line, with its code
    await expect(detail.locator('.cp-TabBody')).toContainText('if y.sum() > 0:');
    await shot(page, 'import-trace-breaks-light');
    await page.theme.setDarkTheme();
    await detail.locator('.cp-Tabs .cp-Tab', { hasText: 'Overview' }).click();
    await expect(detail).toContainText('from a TORCH_TRACE: no timings');
    await shot(page, 'import-trace-dark');
    await page.locator(`${PANEL} .cp-ImportNotice .cp-Dismiss`).click();
    await expect(notice).toHaveCount(0);
  } finally {
    seed('--remove', runId);
  }
});

test('the Overview of a run profiled over inputs of two shapes, light and dark', async ({ page }) => {
  test.setTimeout(180 * 1000); // the seed compiles and times the function on the CPU
  seed('--add-inputs', INPUTS_RUN);
  try {
    await openPanel(page);
    const detail = await openRun(page, INPUTS_RUN, 'Overview');
    const table = detail.locator('.cp-Inputs table');
    await expect(table.locator('tbody tr')).toHaveCount(2);
    await expect(table.locator('tbody tr').first().locator('td').first()).toContainText('16');
    // the bold row says what it is: the signature the variants' table is of
    await expect(table.locator('tbody tr.cp-mod-representative')).toHaveAttribute(
      'title',
      /variants' table below/
    );
    await expect(detail.locator('[data-chart="variants"]')).toHaveCount(1); // a profile's charts are drawn
    await expect(detail.locator('.cp-Inputs')).toContainText('input 4');
    await shot(page, 'inputs-overview-light');
    // the variants chart draws the sequence's times, labelled as the headline words its speedup (as on the card)
    const chart = detail.locator('[data-chart="variants"]');
    await chart.scrollIntoViewIfNeeded();
    await expect(chart.locator('.annotation-text')).toContainText(/over 4 inputs/);
    await shot(page, 'inputs-chart-light');
    await page.theme.setDarkTheme();
    await expect(table).toBeVisible();
    await shot(page, 'inputs-overview-dark');
    await chart.scrollIntoViewIfNeeded();
    await shot(page, 'inputs-chart-dark');
  } finally {
    seed('--remove', INPUTS_RUN);
  }
});
