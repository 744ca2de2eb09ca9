/**
 * The run list as the seeded store holds it: every seeded run, newest first, as text, and a run added while the
 * panel is open appearing without a refresh.  These two count the runs, so they run first and alone (the "seeded
 * store" project in playwright.config.js), before any other spec profiles a cell or imports a trace into the same
 * store; the rest of the card and panel tests are compile_profile.spec.ts's, run beside the other specs.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';

import { expect, test } from '@jupyterlab/galata';

import { openPanel, PANEL, runDetail, selectRun } from './rundetail';
import { openSeededNotebook, shot } from './seeded';

const CPU_RUN = 'uicpu0000001';

test.use({ autoGoto: true });

test("the panel lists the runs newest first, as text; the card's Open opens the run beside the notebook", async ({
  page
}) => {
  await openSeededNotebook(page);
  const open = page.locator('.jp-NotebookPanel .cp-Card .cp-Card-open').first();
  await expect(open).toHaveText('Open');
  await open.click();
  // The card's button opened this run's detail in a main-area tab, titled as the list titles it.
  await expect(runDetail(page, CPU_RUN)).toBeVisible();
  await expect(page.locator('#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current')).toContainText(
    'seeded cpu run'
  );
  await openPanel(page);
  const items = page.locator(`${PANEL} .cp-RunItem`);
  await expect(items).toHaveCount(16); // with the two ranks of the seeded job (job.spec.ts), detail.spec.ts's four
  // (the failed compile's too), diagnosis.spec.ts's one, verdict.spec.ts's three
  await expect(items.nth(0)).toHaveAttribute('data-run-id', CPU_RUN);
  await expect(items.nth(0)).toContainText('seeded cpu run');
  await expect(items.nth(0)).toContainText('cpu (x86_64)');
  await expect(items.nth(0)).toHaveClass(/cp-mod-selected/); // the run whose tab is current
  // The sidebar keeps the list: no detail in it.
  await expect(page.locator(`${PANEL} .cp-Detail`)).toHaveCount(0);
  // Markup in a label is shown as characters, never parsed.
  await expect(items.nth(2)).toContainText('<script>alert(1)</script>');
  await expect(page.locator(`${PANEL} script, ${PANEL} img[src="x"]`)).toHaveCount(0);
  // Opening the run again activates its tab rather than opening a second one.
  await selectRun(page, CPU_RUN);
  await expect(page.locator(`#compile-profile-run-${CPU_RUN}`)).toHaveCount(1);
  await page.locator(`${PANEL} .cp-Check input`).check();
  await expect(items).toHaveCount(1); // only the seeded notebook's run
  await shot(page, 'panel-runs');
});

test('a new run appears without a refresh, and the list survives a reload', async ({ page }) => {
  await openPanel(page);
  await expect(page.locator(`${PANEL} .cp-RunItem`)).toHaveCount(16);
  execFileSync(
    process.env.CP_PYTHON!,
    [path.join(__dirname, '..', 'seed_runs.py'), '--add', 'uiadded00001'],
    {
      env: { ...process.env, ...JSON.parse(process.env.CP_SEED_ENV!) }
    }
  );
  await expect(page.locator(`${PANEL} .cp-RunItem`).first()).toHaveAttribute('data-run-id', 'uiadded00001', {
    timeout: 15000
  });
  await page.reload();
  await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
  await openPanel(page);
  await expect(page.locator(`${PANEL} .cp-RunItem`)).toHaveCount(17);
});
