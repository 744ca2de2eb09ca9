/**
 * compile-profile in Jupyter Notebook 7 (the same server as the JupyterLab tests, its /notebooks
 * pages): a real %%compile_profile cell shows its card, its "Open" button opens the run's detail
 * (Notebook's main area holds the notebook alone, so in the right sidebar), and the page logs no
 * error of ours.
 *
 * Notebook 7.6.5 itself logs "TypeError: Cannot read properties of undefined (reading 'schema')"
 * while it loads settings; it does so with this extension disabled too, so it is not counted.
 */
import * as path from 'path';

// Playwright's own fixtures: Galata's expect a JupyterLab page.
import { expect, test } from '@playwright/test';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');

const CELLS = [
  '%load_ext compile_profile',
  [
    // Notebook 7's page is the subject, not a compiler: the cheapest whole profile (aot_eager, --quick)
    "%%compile_profile --label 'notebook 7' --repeat 5 --warmup 1 --budget 1 --backend aot_eager --quick",
    'import torch',
    'x = torch.randn(64, 64)',
    'y = torch.relu(x @ x) + 1'
  ].join('\n'),
  'after = 1'
];

/** Page errors and console errors whose text or stack names this extension. */
function ours(text: string): boolean {
  return /compile[-_]profile/i.test(text);
}

test('a profiled cell in Notebook 7: card, Open, no page errors of ours', async ({ page, request }) => {
  test.setTimeout(360 * 1000); // compiles on CPU; seconds with a warm Inductor cache, minutes beside a second worker
  const errors: string[] = [];
  page.on('pageerror', error => errors.push(`${error.message}\n${error.stack ?? ''}`));
  page.on('console', message => {
    if (message.type() === 'error') {
      errors.push(message.text());
    }
  });
  const notebook = `notebook7-${Date.now()}.ipynb`;
  const cell = (source: string) => ({
    cell_type: 'code',
    source,
    metadata: {},
    outputs: [],
    execution_count: null
  });
  const saved = await request.put(`/api/contents/${notebook}`, {
    data: {
      type: 'notebook',
      format: 'json',
      content: {
        cells: CELLS.map(cell),
        metadata: {
          kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' }
        },
        nbformat: 4,
        nbformat_minor: 5
      }
    }
  });
  expect(saved.ok()).toBeTruthy();

  await page.goto(`notebooks/${notebook}`);
  const cells = page.locator('.jp-Notebook .jp-Cell');
  await expect(cells).toHaveCount(3, { timeout: 60 * 1000 });
  await expect(
    page.locator('#jp-notebook-kernel-status, .jp-Notebook-ExecutionIndicator').first()
  ).toBeVisible();
  // Each cell run and seen to start before the next: three Shift+Enters pressed at once while a busy machine loaded
  // the page ran the last cell alone (the first two kept their "[ ]:" prompts, and no card came in 5 minutes).
  for (let i = 0; i < CELLS.length; i++) {
    const prompt = cells.nth(i).locator('.jp-InputPrompt');
    await expect(async () => {
      await cells.nth(i).locator('.jp-InputArea-editor').click();
      await page.keyboard.press('Shift+Enter');
      await expect(prompt).not.toHaveText(/^\[ \]:?$/, { timeout: 5000 });
    }).toPass({ timeout: 60 * 1000 });
  }
  const card = page.locator('.jp-Notebook .cp-Card').first();
  await expect(card).toBeVisible({ timeout: 300 * 1000 });
  // the speedup, or the busy CPU that other processes made of a 2-core machine
  await expect(card.locator('.cp-Card-headline')).toContainText(
    /[\d.]+× (faster|slower)( \(within noise\)| \(not meaningful\))?: /
  );
  const runId = await card.getAttribute('data-run-id');
  expect(runId).toMatch(/^[A-Za-z0-9_-]+$/);

  await card.locator('.cp-Card-open').click();
  await expect(
    page.locator(`#compile-profile-run-${runId} .cp-Detail[data-run-id="${runId}"]`)
  ).toBeVisible();
  await page.screenshot({ path: path.join(ARTIFACTS, 'ui-notebook7.png') });

  expect(errors.filter(ours)).toEqual([]);
});
