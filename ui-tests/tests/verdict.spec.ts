/**
 * The verdict where it matters most (issue 31): a run whose compiled results differ, one whose compiled calls ran
 * eagerly (the cell's frame at Dynamo's recompile limit) and one timed on a busy CPU (torch's 2 threads on 1 free
 * core) lead the card, the run list and the Overview with the
 * digest's verdict (digest/outcome.py), in its tone, and keep the speedup beneath it, marked not meaningful.
 * seed_runs.py seeds both runs' cards in verdict.ipynb and writes the digest's verdicts to expected.json.
 * Screenshots at 1600×1000, light and dark, both sidebars open, go to test-artifacts/ui-verdict-*.png.
 */
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { openPanel, openRun, PANEL } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS || path.resolve(__dirname, '..', '..', 'test-artifacts');
const THEMES = ['light', 'dark'] as const;

test.use({ autoGoto: true, viewport: { width: 1600, height: 1000 } });

interface IVerdict {
  id: string;
  headline: string;
  list_status: string;
  speedup: string;
  outcome: { kind: string; label: string; text: string; tone: string; speedup_text: string };
  correctness: string;
}

function expected(): { verdict: IVerdict[]; verdict_compare: IContextRow[] } {
  const db = JSON.parse(process.env.CP_SEED_ENV!).COMPILE_PROFILE_DB as string;
  return JSON.parse(fs.readFileSync(path.join(path.dirname(db), 'expected.json'), 'utf-8'));
}

function verdicts(): IVerdict[] {
  return expected().verdict;
}

interface IContextRow {
  label: string;
  a: string;
  b: string;
  differs: boolean;
}

async function setTheme(page: IJupyterLabPageFixture, theme: 'light' | 'dark'): Promise<void> {
  const light = (await page.evaluate(() => document.body.dataset.jpThemeLight)) !== 'false';
  if (theme === 'dark' && light) {
    await page.theme.setDarkTheme();
  } else if (theme === 'light' && !light) {
    await page.theme.setLightTheme();
  }
}

async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-verdict-${name}.png`) });
}

/** The notebook of both cards, the file browser open on the left and the panel's run list on the right. */
async function openVerdictNotebook(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(async () => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('docmanager:open', { path: 'verdict.ipynb' });
    app.shell.activateById('filebrowser');
  });
  await openPanel(page);
  await expect(page.locator('#filebrowser')).toBeVisible();
}

function card(page: IJupyterLabPageFixture, id: string): Locator {
  return page.locator(`.jp-NotebookPanel .cp-Card[data-run-id="${id}"]`);
}

for (const theme of THEMES) {
  test(`the card and the run list lead with the verdict, the speedup beneath it not meaningful (${theme})`, async ({
    page
  }) => {
    const all = verdicts();
    expect(all.map(v => v.outcome.kind)).toEqual(['results_differ', 'ran_eagerly', 'busy_cpu']);
    await setTheme(page, theme);
    await openVerdictNotebook(page);
    for (const v of all) {
      const c = card(page, v.id);
      await c.waitFor();
      const badge = c.locator('.cp-Card-head .cp-Badge');
      await expect(badge).toHaveText(v.outcome.label);
      await expect(badge).toHaveClass(new RegExp(`cp-mod-${v.outcome.tone}\\b`));
      // the badge's title says why the speedup does not count
      expect(await badge.getAttribute('title')).toContain(v.outcome.speedup_text);
      await expect(c.locator('.cp-Card-headline')).toHaveText(v.headline);
      expect(v.headline.startsWith(`${v.outcome.label}: `)).toBe(true);
      expect(v.headline).toContain(`${v.speedup} (not meaningful)`);
      // in the run list: the verdict as the badge, the speedup beside it struck through, its title saying why
      const item = page.locator(`${PANEL} .cp-RunItem[data-run-id="${v.id}"]`);
      await expect(item.locator('.cp-Badge').first()).toHaveText(v.outcome.label);
      const struck = item.locator('.cp-RunSpeedup');
      await expect(struck).toHaveText(v.speedup);
      expect(await struck.getAttribute('title')).toBe(v.outcome.speedup_text);
      expect(await struck.evaluate(n => getComputedStyle(n).textDecorationLine)).toContain('line-through');
      await expect(item.locator('.cp-RunFlag')).toHaveCount(0); // the badge says it, not twice
      // results not compared say so on the card, in the digest's words; compared ones say nothing there
      const notCompared = c.locator('.cp-Card-correctness');
      if (v.correctness.startsWith('not compared')) {
        await expect(notCompared).toHaveText(`correctness ${v.correctness}`);
      } else {
        await expect(notCompared).toHaveCount(0);
      }
    }
    expect(all.filter(v => v.correctness.startsWith('not compared')).map(v => v.id)).toEqual([all[2].id]);
    // the two tones differ from each other and from a plain slowdown's
    const tones = await Promise.all(
      all.map(v =>
        card(page, v.id)
          .locator('.cp-Card-head .cp-Badge')
          .evaluate(n => getComputedStyle(n).backgroundColor)
      )
    );
    expect(tones[0]).not.toBe(tones[1]);
    expect(tones[2]).not.toBe(tones[0]); // a busy CPU is no wrong result
    await card(page, all[0].id).scrollIntoViewIfNeeded();
    await shot(page, `card-${theme}`);
    await card(page, all[1].id).scrollIntoViewIfNeeded();
    await shot(page, `card-eager-${theme}`);
    await card(page, all[2].id).scrollIntoViewIfNeeded();
    await shot(page, `card-busy-${theme}`);
  });

  test(`the Overview leads with the verdict and marks the speedup not meaningful (${theme})`, async ({
    page
  }) => {
    const [differ] = verdicts();
    await setTheme(page, theme);
    await openPanel(page);
    await page.evaluate(() => (window as any).jupyterapp.shell.activateById('filebrowser'));
    const detail = await openRun(page, differ.id, 'Overview');
    const overview = detail.locator('.cp-Overview');
    const badge = overview.locator('.cp-Overview-head .cp-Verdict-badge');
    await expect(badge).toHaveText(differ.outcome.label);
    await expect(badge).toHaveClass(/cp-mod-wrong/);
    await expect(overview.locator('.cp-Headline')).toHaveText(differ.headline);
    await expect(overview.locator('.cp-Speedup strong')).toHaveText(differ.outcome.speedup_text);
    await expect(overview.locator('.cp-Speedup')).toHaveClass(/cp-mod-meaningless/);
    // the verdict comes before the speedup line, and before the correctness sentence further down
    const order = await overview.evaluate(node =>
      ['.cp-Overview-head', '.cp-Speedup', '.cp-Correctness'].map(sel => {
        const found = node.querySelector(sel);
        return found ? found.getBoundingClientRect().top : -1;
      })
    );
    expect(order.every(top => top >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    await shot(page, `overview-${theme}`);
  });
}

for (const theme of THEMES) {
  test(`Compare shows what the two runs ran with that differs first, above the figures (${theme})`, async ({
    page
  }) => {
    const [a, b] = verdicts().map(v => v.id);
    const context = expected().verdict_compare;
    const differs = context.filter(r => r.differs).map(r => r.label);
    // the seeded pair differ in their verdicts, threads, other processes' load and options, and share the cell
    expect(differs).toEqual(
      expect.arrayContaining(['verdict', 'threads', 'other processes', 'profile options'])
    );
    expect(context.find(r => r.label === 'cell')?.differs).toBe(false);
    await setTheme(page, theme);
    await openPanel(page);
    await page.sidebar.setWidth(400, 'right');
    await page.locator(`${PANEL} .cp-Views .cp-Tab`, { hasText: 'Compare' }).click();
    await page.locator(`${PANEL} select[aria-label="before"]`).selectOption(a);
    await page.locator(`${PANEL} select[aria-label="after"]`).selectOption(b);
    const table = page.locator(`${PANEL} .cp-CompareTable[data-a="${a}"][data-b="${b}"]`);
    await expect(table).toBeVisible();
    const rows = table.locator('tr.cp-CompareRef:not(.cp-CompareIds)');
    await expect(rows).toHaveCount(context.length);
    expect(await rows.evaluateAll(trs => trs.map(tr => (tr as HTMLElement).dataset.context))).toEqual(
      context.map(r => r.label)
    );
    for (const [i, r] of context.entries()) {
      await expect(rows.nth(i).locator('td')).toHaveText([r.a, r.b, r.differs ? 'differs' : 'same']);
    }
    // the rows that differ come before the figures, and are marked in a colour of their own
    const [firstDelta, lastContext] = await Promise.all([
      table
        .locator('tr.cp-Delta')
        .first()
        .evaluate(n => n.getBoundingClientRect().top),
      rows.last().evaluate(n => n.getBoundingClientRect().top)
    ]);
    expect(lastContext).toBeLessThan(firstDelta);
    const colour = (i: number) =>
      rows
        .nth(i)
        .locator('td')
        .first()
        .evaluate(n => getComputedStyle(n).color);
    expect(await colour(0)).not.toBe(await colour(context.length - 1));
    await shot(page, `compare-${theme}`);
  });
}
