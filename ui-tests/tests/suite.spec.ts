/**
 * The Suite view (issue 34) at 1600×1000 with both sidebars open, light and dark: the panel's Suites list opens a
 * suite's tab, which leads with the digest's headline (pass rate, geomean with its interval), draws the speedup
 * chart (a bar per entry, sorted, coloured by status, the geomean marked) and compile time against speedup, and
 * lists each entry with the digest's words; a row opens its run.  Screenshots in
 * test-artifacts/ui-suite-{light,dark}.png.  The suite is seed_runs.py --add-suite's, taken out again at the end.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { openPanel, PANEL, runDetail } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
const SUITE = 'uisuite00001';

test.use({ autoGoto: true, viewport: { width: 1600, height: 1000 } });

function seed(...args: string[]): void {
  execFileSync(process.env.CP_PYTHON!, [path.join(__dirname, '..', 'seed_runs.py'), ...args], {
    env: { ...process.env, ...JSON.parse(process.env.CP_SEED_ENV!) }
  });
}

interface IExpectedSuite {
  id: string;
  headline: string;
  rows: [string, string, string][];
  older: string;
  comparison: { headline: string; rows: [string, string, string][]; regressions: string[] };
}

function expected(): IExpectedSuite {
  const db = JSON.parse(process.env.CP_SEED_ENV!).COMPILE_PROFILE_DB as string;
  return JSON.parse(fs.readFileSync(path.join(path.dirname(db), 'expected-suite.json'), 'utf8'));
}

test.beforeAll(() => seed('--add-suite'));
test.afterAll(() => seed('--remove-suite'));

async function setTheme(page: IJupyterLabPageFixture, theme: 'light' | 'dark'): Promise<void> {
  const light = (await page.evaluate(() => document.body.dataset.jpThemeLight)) !== 'false';
  if (theme === 'dark' && light) {
    await page.theme.setDarkTheme();
  } else if (theme === 'light' && !light) {
    await page.theme.setLightTheme();
  }
}

test('the Suites view lists the suite and its tab lays out the digest: headline, charts, a row per entry', async ({
  page
}) => {
  const want = expected();
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    await page.sidebar.openTab('filebrowser');
    await openPanel(page);
    const panel = page.locator(PANEL);
    await panel.getByRole('tab', { name: 'Suites' }).click();
    const item = panel.locator(`.cp-SuiteItem[data-suite-id="${SUITE}"]`);
    await expect(item).toBeVisible();
    await expect(item).toContainText('before the torch upgrade');
    // the list answers "how fast?" before the suite is opened: its pass rate and geometric mean, the digest's words
    await expect(item.locator('.cp-SuiteItemHeadline')).toHaveText(want.headline);
    await item.locator('.cp-SuiteItemButton').click();

    const view = page.locator(`.cp-SuiteContent .cp-Suite[data-suite-id="${SUITE}"]`);
    await expect(view.locator('.cp-SuiteHeadline')).toHaveText(want.headline);
    // the tab says which suite by its label first: three tabs of suites read "suite f9d7930…" alike
    await expect(page.locator('#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current')).toContainText(
      'before the torch upgrade'
    );
    const rows = view.locator('tr.cp-SuiteRow');
    await expect(rows).toHaveCount(want.rows.length);
    for (const [i, [name, status, speedup]] of want.rows.entries()) {
      const row = rows.nth(i);
      await expect(row.locator('th')).toHaveText(name);
      await expect(row.locator('.cp-SuiteBadge')).toHaveText(status);
      await expect(row.locator('td').nth(1)).toHaveText(speedup);
    }
    const bars = view.locator('.cp-ChartHost[data-chart="suite speedup"] .js-plotly-plot g.point');
    await expect(bars).toHaveCount(want.rows.filter(r => r[1] !== 'skipped').length);
    await expect(view.locator('.cp-ChartHost[data-chart="suite speedup"] g.annotation')).toContainText(
      'geomean'
    );
    await expect(view.locator('.cp-ChartHost[data-chart="suite compile"] .js-plotly-plot')).toBeVisible();
    await expect(page.locator('.jp-FileBrowser')).toBeVisible();
    await expect(panel).toBeVisible();
    await page.screenshot({ path: path.join(ARTIFACTS, `ui-suite-${theme}.png`) });

    // compared with the same collection under an older torch: status changes first, as suite-compare words them
    await view.getByLabel('compare with another suite').selectOption(want.older);
    const comparison = view.locator('.cp-SuiteComparison');
    await expect(comparison.locator('.cp-SuiteComparisonHeadline')).toHaveText(want.comparison.headline);
    const compared = comparison.locator('tr.cp-SuiteComparisonRow');
    for (const [i, [name, status, ratio]] of want.comparison.rows.entries()) {
      await expect(compared.nth(i).locator('th')).toHaveText(name);
      await expect(compared.nth(i).locator('td').nth(0)).toHaveText(status);
      await expect(compared.nth(i).locator('td').nth(3)).toHaveText(ratio);
    }
    await expect(comparison.locator('.cp-SuiteComparisonRegressions li')).toHaveText(
      want.comparison.regressions
    );
    await comparison.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, `ui-suite-${theme}-compare.png`) });
    await view.getByLabel('compare with another suite').selectOption('');
    await expect(comparison).toHaveCount(0);
    await view.locator('.cp-SuiteTable').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, `ui-suite-${theme}-table.png`) });

    // a row opens its entry's run in a tab of its own
    await rows.first().click();
    await expect(runDetail(page, 'uisuite00000')).toBeVisible(); // gpt2's run
    // no notebook cell holds a suite entry's step: Re-run names the entry it is (the run records it) and how
    const detail = runDetail(page, 'uisuite00000');
    await detail.locator('.cp-Action[data-action="rerun"]').click();
    await expect(detail.locator('.cp-ActionNote')).toContainText(
      'this run is the entry "gpt2" of suite uisuite00001, built by its collection'
    );
    await page.evaluate(() => {
      const app = (window as any).jupyterapp;
      for (const w of Array.from(app.shell.widgets('main') as Iterable<any>)) {
        if (String(w.id).startsWith('compile-profile-')) {
          w.close();
        }
      }
    });
  }
});

test('a stored suite that cannot be read is listed as text, its id and why, beside the readable one', async ({
  page
}) => {
  const unreadable = 'uisuite00009'; // seed_runs.py's UNREADABLE_SUITE: an outcome named with markup, its error 1
  await page.sidebar.openTab('filebrowser');
  await openPanel(page);
  const panel = page.locator(PANEL);
  await panel.getByRole('tab', { name: 'Suites' }).click();
  const bad = panel.locator(`.cp-SuiteItem[data-suite-id="${unreadable}"]`);
  await expect(bad.locator('.cp-SuiteItemTitle')).toHaveText(`Suite ${unreadable}`);
  await expect(bad.locator('.cp-Unreadable')).toHaveText(
    `cannot be read: the outcome of '<img src=x onerror="window.cpXss=1">n': error: expected a string, got an integer (1)`
  );
  // nothing to open, no element from the stored text; its ✕ removes it (before, only editing the SQLite file did)
  await expect(bad.locator('.cp-SuiteItemButton, img')).toHaveCount(0);
  await expect(panel.locator(`.cp-SuiteItem[data-suite-id="${SUITE}"] .cp-SuiteItemButton`)).toContainText(
    'before the torch upgrade'
  );
  expect(await page.evaluate(() => (window as any).cpXss)).toBeUndefined();
  await page.screenshot({ path: path.join(ARTIFACTS, 'ui-suite-unreadable.png') });

  await bad.getByRole('button', { name: `delete suite ${unreadable}` }).click();
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('.jp-Dialog-header')).toHaveText('Delete suite?');
  await expect(dialog.locator('.jp-Dialog-body')).toHaveText(
    `Delete suite ${unreadable} and the runs its entries stored from the run store?`
  );
  await page.screenshot({ path: path.join(ARTIFACTS, 'ui-suite-delete-dialog.png') });
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(bad).toHaveCount(0);
  await expect(panel.locator(`.cp-SuiteItem[data-suite-id="${SUITE}"]`)).toHaveCount(1); // the other one stays
});
