/**
 * The run list as a listbox (Up/Down, Home/End, Enter, Delete); the panel's switch and filter fixed over a
 * scrolling list; a restored tab of a deleted run saying so in words, with a button that closes it (issue 31, at
 * 1600×1000 with both sidebars, light and dark, screenshots in test-artifacts/ui-views-*.png).  These walk the run
 * list by position, so they run last and alone (playwright.config.js): a run another spec added meanwhile moved the
 * rows (Enter opened the row that had been second).  views_layout.spec.ts has the rest of issue 31's views.
 * The runs are seed_runs.py --add-views (views_runs), taken out again at the end.
 */
import { expect, JupyterLabPage, test } from '@jupyterlab/galata';

import { openRun, PANEL } from './rundetail';
import { bothSidebars, closeMainTabs, FILLERS, seed, setTheme, shot, THEMES } from './views_common';

test.use({ autoGoto: true, viewport: { width: 1600, height: 1000 } });

test.beforeAll(() => seed('--add-views'));
test.afterAll(() => seed('--remove-views'));

test('the run list takes the arrow keys: one Tab stop, Up/Down/Home/End move the selection, Enter opens, Delete asks', async ({
  page
}) => {
  for (const theme of THEMES) {
    await setTheme(page, theme);
    await bothSidebars(page);
    const list = page.locator(`${PANEL} [role="listbox"]`);
    const options = list.locator('[role="option"]');
    await expect(options.nth(20)).toBeAttached();
    const count = await options.count();
    await expect(list.locator('[role="option"][tabindex="0"]')).toHaveCount(1);
    await expect(list.locator('button:not([tabindex="-1"])')).toHaveCount(0); // ✕ and Open job: the pointer's
    // Tab from the import button enters the list at its one stop: the first row, then the row last moved to
    await page.locator(`${PANEL} .cp-ImportTrace`).focus();
    await page.keyboard.press('Tab');
    const selected = list.locator('[role="option"][aria-selected="true"]');
    await expect(selected).toHaveCount(1);
    await expect(selected).toBeFocused();
    await expect(selected).toHaveAttribute('tabindex', '0');
    await expect(options.nth(theme === 'light' ? 0 : 3)).toBeFocused(); // the light pass ends on the fourth
    await page.keyboard.press('Home');
    await expect(options.first()).toBeFocused();
    expect(await options.first().evaluate(el => getComputedStyle(el).outlineStyle)).not.toBe('none');
    await page.keyboard.press('ArrowDown');
    await expect(options.nth(1)).toBeFocused();
    await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
    await expect(options.first()).toHaveAttribute('aria-selected', 'false');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await expect(options.nth(1)).toBeFocused();
    await page.keyboard.press('End');
    await expect(options.nth(count - 1)).toBeFocused();
    await expect(options.nth(count - 1)).toBeInViewport(); // the list scrolled to it
    await page.keyboard.press('ArrowDown'); // stays at the end
    await expect(options.nth(count - 1)).toBeFocused();
    await page.keyboard.press('Home');
    await expect(options.first()).toBeFocused();
    // Tab leaves the list (no stop on each row's buttons); Shift+Tab comes back to the row last moved to
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('.cp-RunList'))).toBe(false);
    await page.keyboard.press('Shift+Tab');
    await expect(options.nth(1)).toBeFocused();
    // Enter opens the selected run's detail
    const id = await options.nth(1).getAttribute('data-run-id');
    await page.keyboard.press('Enter');
    await expect(page.locator(`#compile-profile-run-${id} .cp-Detail`)).toBeVisible();
    // Delete on a run asks first; Cancel keeps it
    await options.nth(1).focus();
    await page.keyboard.press('Delete');
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog).toContainText('Delete run?');
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(list.locator(`[data-run-id="${id}"]`)).toHaveCount(1);
    await options.nth(2).focus();
    await page.keyboard.press('ArrowDown');
    await expect(options.nth(3)).toBeFocused();
    await shot(page, `runlist-keys-${theme}`);
    await closeMainTabs(page);
  }
  await setTheme(page, 'light');
});

test('the Runs/Compare switch and the notebook filter stay in place while the run list scrolls under them', async ({
  page
}) => {
  for (const theme of THEMES) {
    await setTheme(page, theme);
    await bothSidebars(page);
    const panel = page.locator(PANEL);
    const scroller = panel.locator('.cp-PanelScroll');
    await expect(panel.locator('.cp-RunItem').nth(20)).toBeAttached();
    const fixed = [panel.locator('.cp-Views'), panel.locator('.cp-Toolbar .cp-Check')];
    const before = await Promise.all(fixed.map(l => l.boundingBox()));
    // the list is longer than the panel, and it is the list that scrolls
    expect(await scroller.evaluate(el => el.scrollHeight > el.clientHeight + 100)).toBe(true);
    await scroller.evaluate(el => el.scrollTo({ top: el.scrollHeight }));
    await expect.poll(() => scroller.evaluate(el => el.scrollTop)).toBeGreaterThan(100);
    const after = await Promise.all(fixed.map(l => l.boundingBox()));
    expect(after).toEqual(before);
    for (const l of fixed) {
      await expect(l).toBeInViewport();
    }
    expect(await panel.evaluate(el => el.scrollHeight <= el.clientHeight + 1 && el.scrollTop === 0)).toBe(
      true
    );
    await expect(panel.locator('.cp-RunItem').last()).toBeInViewport();
    await shot(page, `panel-scrolled-${theme}`);
    // Compare too: the switch stays over it
    await panel.locator('.cp-Views [role="tab"]', { hasText: 'Compare' }).click();
    await expect(panel.locator('.cp-CompareTable')).toBeVisible();
    await panel.locator('.cp-PanelScroll').evaluate(el => el.scrollTo({ top: el.scrollHeight }));
    expect(await panel.locator('.cp-Views').boundingBox()).toEqual(before[0]);
    await panel.locator('.cp-Views [role="tab"]', { hasText: 'Runs' }).click();
  }
  await setTheme(page, 'light');
});

test('a restored tab of a deleted run says in words that it was deleted from the store, and closes', async ({
  page
}) => {
  for (const [i, theme] of THEMES.entries()) {
    await setTheme(page, theme);
    await bothSidebars(page);
    const id = FILLERS[i];
    await openRun(page, id, 'Overview');
    const tab = page.locator('.lm-TabBar-tab', { hasText: `filler run ${i + 1}` });
    await expect(tab).toBeVisible();
    await page.waitForTimeout(1500); // the restorer saves the tab's title with its args
    seed('--remove', id);
    // galata's reload, without waiting for the Launcher to be in front: the restored run's tab is
    await (page as unknown as JupyterLabPage).reload({ waitForIsReady: false });
    const widget = page.locator(`#compile-profile-run-${id}`);
    const missing = widget.locator('.cp-Missing');
    await expect(missing).toBeVisible({ timeout: 60 * 1000 });
    await expect(missing).toContainText(
      `"filler run ${i + 1}" (run ${id}) is no longer in the run store: it was deleted from it`
    );
    await expect(widget).not.toContainText('404');
    await expect(widget).not.toContainText('Cannot load');
    await expect(page.locator('.lm-TabBar-tab', { hasText: `filler run ${i + 1} (deleted)` })).toBeVisible();
    await bothSidebars(page);
    await shot(page, `deleted-run-${theme}`);
    await missing.locator('button', { hasText: 'Close this tab' }).click();
    await expect(widget).toHaveCount(0);
  }
  await setTheme(page, 'light');
});
