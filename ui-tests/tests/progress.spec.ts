/**
 * The magic's progress line keeps its clock moving while the kernel sends nothing (a C++ compile is
 * seconds without an update): a cell sends the line as the magic's _ProgressLine does (the progress
 * MIME type beside text/plain, 5 s elapsed), stays busy 6 s without updating it, then empties it as the
 * magic does when the card comes.  The shown seconds must advance between two reads 1.5 s apart, the
 * message shows as text, and the emptied line takes its renderer (and its timer) with it.  The second
 * test runs the magic itself on a cell whose first eager run sleeps 5 s: its line counts on through it.
 * Screenshots: test-artifacts/ui-progress-line.png, ui-progress-magic.png.
 */
import * as path from 'path';

import { expect, test } from '@jupyterlab/galata';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
const MESSAGE = 'inductor/default: compiling C++ <b>as text</b>';

const CELL = `import time
from IPython.display import display
line = {
    "text/plain": "compile_profile [  5.0 s] stage 2 of 7: ${MESSAGE}",
    "application/vnd.compile-profile.progress+json": {
        "started_at": round(time.time() * 1000 - 5000), "elapsed_s": 5.0,
        "message": "${MESSAGE}", "stage": 2, "stages": 7,
    },
}
handle = display(line, raw=True, display_id=True)
time.sleep(6)
handle.update({"text/plain": ""}, raw=True)`;

function shownSeconds(text: string | null, stage = 2): number {
  const match = new RegExp(`^compile_profile \\[ *(\\d+\\.\\d) s\\] stage ${stage} of 7: `).exec(text ?? '');
  expect(match, `the line reads ${JSON.stringify(text)}`).not.toBeNull();
  return Number(match![1]);
}

test("the progress line's clock moves while the kernel sends nothing, and goes with the line", async ({
  page
}) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.notebook.createNew('progress.ipynb');
  await page.notebook.setCell(0, 'code', CELL);
  const run = page.notebook.runCell(0); // resolves when the cell is done
  const line = page.locator('.jp-NotebookPanel .jp-OutputArea .cp-Progress');
  await expect(line).toBeVisible({ timeout: 60_000 });
  const first = shownSeconds(await line.textContent());
  await page.waitForTimeout(1500);
  const second = shownSeconds(await line.textContent());
  expect(first).toBeGreaterThanOrEqual(5.0);
  expect(second - first).toBeGreaterThanOrEqual(1.0);
  expect(second - first).toBeLessThan(3.0);
  await expect(line).toContainText(MESSAGE); // the message's markup is characters
  await expect(line.locator('b')).toHaveCount(0);
  await page.screenshot({ path: path.join(ARTIFACTS, 'ui-progress-line.png') });
  await run;
  await expect(line).toHaveCount(0);
});

test("the magic's own progress line counts on through a first run that sends nothing for 5 s", async ({
  page
}) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.notebook.createNew('progress-magic.ipynb');
  await page.notebook.setCell(
    0,
    'code',
    '%load_ext compile_profile\nimport time, torch\nx = torch.randn(64)'
  );
  await page.notebook.runCell(0);
  // Only the first eager run sleeps (a module attribute outlives the profile's resets of the namespace).
  await page.notebook.setCell(
    1,
    'code',
    '%%compile_profile --no-store --warmup 1 --repeat 3 --budget 0.2 --backend aot_eager --quick\n' +
      "time.sleep(0 if hasattr(time, 'cp_slept') else 5)\ntime.cp_slept = True\ny = torch.relu(x) + 1"
  );
  const run = page.notebook.runCell(1);
  const line = page.locator('.jp-NotebookPanel .jp-OutputArea .cp-Progress');
  await expect(line).toContainText('stage 1 of 7: eager: first run', { timeout: 60_000 });
  const first = shownSeconds(await line.textContent(), 1);
  await page.waitForTimeout(1500);
  const second = shownSeconds(await line.textContent(), 1);
  expect(second - first).toBeGreaterThanOrEqual(1.0);
  await page.screenshot({ path: path.join(ARTIFACTS, 'ui-progress-magic.png') });
  await run;
  await expect(page.locator('.jp-NotebookPanel .cp-Card')).toBeVisible({ timeout: 120_000 });
  await expect(line).toHaveCount(0);
});
