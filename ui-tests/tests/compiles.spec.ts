/**
 * The Compiles tab (issue 35): every compile of a run by compile id and attempt, where they started (the compile-site
 * tree, coloured by status), one compile's detail with its metrics, cache lookups and artifacts (the whole output
 * code opened in CodeMirror, loaded by its hash), the linked provenance view (a script line, the post-grad nodes and
 * the output-code lines it became), a compile Dynamo restarted as its attempts, the Perfetto export from the Compile
 * tab, and the job view's multi-rank checks. The runs are the TORCH_TRACE fixtures, imported by seed_runs.py
 * --add-traces. Screenshots at 1600×1000 with both sidebars open, light and dark: test-artifacts/ui-compiles-*.png.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { openPanel, openRun, tabName } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
const SCRIPT = 'uitracescr01';
const LOOP = 'uitraceloop1';
const JOB = 'uitracejob00';

test.use({ autoGoto: true, viewport: { width: 1600, height: 1000 } });

function seed(...args: string[]): void {
  execFileSync(process.env.CP_PYTHON!, [path.join(__dirname, '..', 'seed_runs.py'), ...args], {
    env: { ...process.env, ...JSON.parse(process.env.CP_SEED_ENV!) }
  });
}

async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-compiles-${name}.png`) });
}

async function bothSidebars(page: IJupyterLabPageFixture): Promise<void> {
  await page.sidebar.openTab('filebrowser');
  await openPanel(page);
}

test.beforeAll(() => seed('--add-traces'));
// the other specs count the seeded runs: these leave with the spec
test.afterAll(() => seed('--remove', SCRIPT, LOOP, JOB, 'uitracejob01', 'uitracehost1'));

test('a compile opens with its metrics, cache keys and whole output code, and a script line links to its kernels', async ({
  page
}) => {
  for (const theme of ['light', 'dark'] as const) {
    if (theme === 'dark') {
      await page.theme.setDarkTheme();
    }
    await bothSidebars(page);
    const detail = await openRun(page, SCRIPT, 'Compiles');
    const body = detail.locator('.cp-TabBody');
    // the tree: the module-level call, the compiled forward under it, each compile a button in its status's colour
    const tree = body.locator('.cp-CompileTree');
    await expect(tree).toContainText('record.py line 110 in <module>');
    const first = tree.locator('.cp-CompileLink', { hasText: '[0/1]' });
    await expect(first).toHaveClass(/cp-status-ok/);
    await first.click();
    const compile = body.locator('.cp-CompileDetail[data-compile="trace:0/1:0"]');
    await expect(compile.locator('.cp-CompileDetail-title')).toContainText(
      '[0/1] forward at record.py line 82'
    );
    await expect(compile.locator('.cp-CompileMetrics')).toContainText('entire frame');
    await expect(compile.locator('.cp-CacheLookups')).toContainText('FX graph cache miss (full_miss)');
    await expect(compile.locator('.cp-CacheLookups')).toContainText('key components');
    // the whole output module, with call(), loaded by its hash when opened
    await compile.locator('.cp-CompileArtifacts button', { hasText: 'output code' }).first().click();
    await expect(compile.locator('.cp-CodeView-source')).toContainText('def call(self, args)');
    // provenance: script line 83 marks its post-grad nodes and the output code's addmm call; a click there goes back
    const provenance = compile.locator('.cp-Provenance').first();
    await provenance.locator('.cp-Provenance-group', { hasText: 'record.py line 83' }).first().click();
    const code = provenance.locator('.cp-Provenance-lines[data-pane="output_code"]');
    await expect(
      code.locator('.cp-Provenance-line.cp-mod-marked', { hasText: 'extern_kernels.addmm(' })
    ).toHaveCount(1);
    await expect(
      provenance.locator('.cp-Provenance-lines[data-pane="post_grad"] .cp-mod-marked', { hasText: 'addmm' })
    ).not.toHaveCount(0);
    await provenance.scrollIntoViewIfNeeded();
    await shot(page, `script-${theme}`);
    await code.locator('.cp-Provenance-line', { hasText: 'extern_kernels.addmm(' }).click();
    await expect(provenance.locator('.cp-Provenance-group.cp-mod-marked')).toHaveCount(1);
    await expect(provenance.locator('.cp-Provenance-group.cp-mod-marked')).toContainText('record.py line 83');
    await compile.locator('.cp-CompileArtifacts').scrollIntoViewIfNeeded();
    await shot(page, `script-artifact-${theme}`);
    await page.evaluate(() => (window as any).jupyterapp.commands.execute('application:close-all'));
  }
  await page.theme.setLightTheme();
});

test('a compile Dynamo restarted shows its attempts; the Compile tab exports the compiles for Perfetto', async ({
  page
}) => {
  await bothSidebars(page);
  const detail = await openRun(page, LOOP, 'Compiles');
  const body = detail.locator('.cp-TabBody');
  await body.locator('.cp-CompileList .cp-CompileLink', { hasText: '[2/1_2]' }).click();
  const compile = body.locator('.cp-CompileDetail[data-compile="trace:2/1:2"]');
  const attempts = compile.locator('.cp-CompileAttempts li');
  await expect(attempts).toHaveCount(3);
  await expect(attempts.nth(0)).toContainText('attempt 0: an attempt Dynamo dropped when it restarted');
  await expect(compile.locator('.cp-Note').first()).toContainText('Dynamo restarted its analysis 2 times');
  await expect(body.locator('.cp-CompileTree .cp-CompileLink.cp-status-empty').first()).toBeVisible();
  await shot(page, 'loop-light');
  // the timeline's compile ids open them here
  await detail.locator('.cp-Tabs .cp-Tab', { hasText: tabName('Compile') }).click();
  const download = page.waitForEvent('download');
  await detail.locator('.cp-Compile-actions button', { hasText: 'Export for Perfetto' }).click();
  const saved = await (await download).path();
  const trace = JSON.parse(fs.readFileSync(saved!, 'utf-8'));
  expect(trace.traceEvents.filter((e: any) => e.ph === 'X').length).toBeGreaterThan(100);
  await detail.locator('.cp-CompileTimeline button', { hasText: '2/1' }).first().click();
  await expect(detail.locator('.cp-TabBody')).toHaveAttribute('data-tab', 'Compiles');
  await expect(detail.locator('.cp-CompileDetail[data-compile="trace:2/1:2"]')).toBeVisible();
});

test('the job view names the rank whose compile ids and cache lookups diverge', async ({ page }) => {
  for (const theme of ['light', 'dark'] as const) {
    if (theme === 'dark') {
      await page.theme.setDarkTheme();
    }
    await bothSidebars(page);
    await page.evaluate(async id => {
      const app = (window as any).jupyterapp;
      await app.commands.execute('compile-profile:open-job', { jobId: id });
    }, JOB);
    const job = page.locator('.cp-Job').first();
    await expect(job).toContainText('14 compile ids where the others have 11');
    await expect(job).toContainText("cache lookups differ from the others': extra AOTAutograd miss for 6/1");
    await shot(page, `job-${theme}`);
    await page.evaluate(() => (window as any).jupyterapp.commands.execute('application:close-all'));
  }
  await page.theme.setLightTheme();
});

test('a trace with markup in its artifacts, frames and keys shows it as text in the Compiles tab', async ({
  page
}) => {
  const markup = '<img src=x onerror="window.__cpCompileXss=1">';
  const detail = await openRun(page, 'uitracehost1', 'Compiles');
  const body = detail.locator('.cp-TabBody');
  await body.locator('.cp-CompileList .cp-CompileLink', { hasText: '[0/0]' }).click();
  const compile = body.locator('.cp-CompileDetail[data-compile="trace:0/0:0"]');
  await expect(compile.locator('.cp-CompileDetail-title')).toContainText(markup);
  await expect(compile.locator('.cp-CacheLookups')).toContainText(markup);
  await compile.locator('.cp-CompileArtifacts button').first().click();
  await expect(compile.locator('.cp-CodeView-source')).toContainText(markup);
  await expect(compile.locator('.cp-CodeView-source')).toContainText(
    '<script>window.__cpCompileXss=2</script>'
  );
  await expect(body.locator('img')).toHaveCount(0);
  await expect(body.locator('script')).toHaveCount(0);
  expect(await page.evaluate(() => (window as any).__cpCompileXss)).toBeUndefined();
});
