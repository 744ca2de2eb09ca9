/**
 * What runlist.spec.ts and compile_profile.spec.ts share: the seeded notebook (seed_runs.py's seeded.ipynb, its
 * cards from the seeded store) opened, and screenshots named test-artifacts/ui-NAME.png.
 */
import * as path from 'path';

import { IJupyterLabPageFixture } from '@jupyterlab/galata';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');

export async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-${name}.png`) });
}

export async function openSeededNotebook(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(async () => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('docmanager:open', { path: 'seeded.ipynb' });
  });
  await page.locator('.jp-NotebookPanel .cp-Card').first().waitFor();
}
