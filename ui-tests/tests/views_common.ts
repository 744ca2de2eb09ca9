/**
 * What views.spec.ts and views_layout.spec.ts share: the runs seed_runs.py --add-views puts (views_runs), the
 * themes, both sidebars open as issue 31 saw them, screenshots named test-artifacts/ui-views-*.png.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';

import { expect, IJupyterLabPageFixture } from '@jupyterlab/galata';

import { openPanel, PANEL } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
export const THEMES = ['light', 'dark'] as const;
export const CPU_RUN = 'uicpu0000001';
export const WITHHELD_RUN = 'uiwithheld01';
export const LONG_TAIL_RUN = 'uilongtail01';
export const INPUTS_RUN = 'uiinputs0001';
export const FILLERS = ['uifill000000', 'uifill000001'];

/** seed_runs.py on the server's store (playwright.config.js passes its paths in CP_SEED_ENV). */
export function seed(...args: string[]): void {
  execFileSync(process.env.CP_PYTHON!, [path.join(__dirname, '..', 'seed_runs.py'), ...args], {
    env: { ...process.env, ...JSON.parse(process.env.CP_SEED_ENV!) }
  });
}

export async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-views-${name}.png`) });
}

export async function setTheme(page: IJupyterLabPageFixture, theme: 'light' | 'dark'): Promise<void> {
  const light = (await page.evaluate(() => document.body.dataset.jpThemeLight)) !== 'false';
  if (theme === 'dark' && light) {
    await page.theme.setDarkTheme();
  } else if (theme === 'light' && !light) {
    await page.theme.setLightTheme();
  }
}

/** The file browser on the left and the Compile Profile panel on the right, as the issue saw them. */
export async function bothSidebars(page: IJupyterLabPageFixture): Promise<void> {
  await page.sidebar.openTab('filebrowser');
  await openPanel(page);
  await expect(page.locator('.jp-FileBrowser')).toBeVisible();
  await expect(page.locator(PANEL)).toBeVisible();
}

export async function closeMainTabs(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => {
    const app = (window as any).jupyterapp;
    for (const w of Array.from(app.shell.widgets('main') as Iterable<any>)) {
      if (String(w.id).startsWith('compile-profile-run-') || w.hasClass?.('jp-NotebookPanel')) {
        if (w.context?.model) {
          w.context.model.dirty = false; // nothing to save: no "Save your work" dialog over the next screenshot
        }
        w.close();
      }
    }
  });
}
