/**
 * Where the specs find the sidebar panel and a run's detail, which opens in a main-area tab of its
 * own (ext/src/detailwidget.tsx): open a run from the run list or by its command, and get the
 * detail's locator, so a spec reads the same whichever way the run was opened.
 */
import { expect, IJupyterLabPageFixture } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

export const PANEL = '#compile-profile-panel';

/** A run's detail, in its main-area tab. */
export function runDetail(page: IJupyterLabPageFixture, id: string): Locator {
  return page.locator(`#compile-profile-run-${id} .cp-Detail[data-run-id="${id}"]`);
}

/** Show the sidebar panel (compile-profile:open); given a runId, that run's tab opens too. */
export async function openPanel(
  page: IJupyterLabPageFixture,
  args: Record<string, string> = {}
): Promise<void> {
  await page.evaluate(async a => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('compile-profile:open', a);
  }, args);
  await expect(page.locator(PANEL)).toBeVisible();
}

/** Click a run in the panel's list (the panel open), then one of its detail's tabs; returns the detail. */
export async function selectRun(page: IJupyterLabPageFixture, id: string, tab?: string): Promise<Locator> {
  await page.locator(`${PANEL} .cp-RunItem[data-run-id="${id}"]`).click();
  return showTab(page, id, tab);
}

/** Open a run by compile-profile:open-run, then one of its detail's tabs; returns the detail. */
export async function openRun(page: IJupyterLabPageFixture, id: string, tab?: string): Promise<Locator> {
  await page.evaluate(async runId => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('compile-profile:open-run', { runId });
  }, id);
  return showTab(page, id, tab);
}

async function showTab(page: IJupyterLabPageFixture, id: string, tab?: string): Promise<Locator> {
  const detail = runDetail(page, id);
  await expect(detail).toBeVisible();
  if (tab) {
    await detail.locator('.cp-Tabs .cp-Tab', { hasText: tabName(tab) }).click();
    await expect(detail.locator('.cp-TabBody')).toHaveAttribute('data-tab', tab);
  }
  return detail;
}

/** A tab by its name, with or without its count ("Compile" is not "Compiles (6)"). */
export function tabName(tab: string): RegExp {
  return new RegExp(`^${tab.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(\\d+\\))?$`);
}
