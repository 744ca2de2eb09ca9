/**
 * The verdict where it matters most (issue 31): a run whose compiled results differ, one whose compiled calls ran
 * eagerly (the cell's frame at Dynamo's recompile limit) and one timed on a busy CPU (torch's 2 threads on 1 free
 * core) lead the card, the run list and the Overview with the
 * digest's verdict (digest/outcome.py), in its tone, and keep the speedup beneath it, marked not meaningful; the
 * card chart's speedup label clear of the whiskers, and no chart on a card where nothing was timed (eager failed).
 * seed_runs.py seeds the runs' cards in verdict.ipynb and writes the digest's verdicts to expected.json.
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

const UNTIMED_RUN = 'uifailed0001'; // eager failed: no variant timed (seed_runs.py stopped_runs)
const WHISKER_RUN = 'uiwhisker001'; // its card only: a whisker well above the compiled bar (seed_runs.py whisker_run)

interface IBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * The card chart's speedup labels ("1.53× slower [1.46×–1.61×] 95% CI …", whether plotly drew them as bar text or
 * annotations) and its whiskers (the p10-p90 error bars' paths), as drawn.
 */
async function labelsAndWhiskers(
  c: Locator
): Promise<{ labels: (IBox & { text: string })[]; whiskers: IBox[] }> {
  const plot = c.locator('.js-plotly-plot');
  await expect(plot.locator('g.errorbar path').first()).toBeVisible();
  return plot.evaluate(gd => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    return {
      labels: Array.from(gd.querySelectorAll('text.bartext, g.annotation text'))
        .filter(t => /×/.test(t.textContent ?? ''))
        .map(t => ({ ...box(t), text: t.textContent ?? '' })),
      whiskers: Array.from(gd.querySelectorAll('g.errorbar path')).map(box)
    };
  });
}

function overlaps(a: IBox, b: IBox): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
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
      // the speedup's label lies clear of every whisker (it sat across the compiled bar's, issue 2026-12-06b)
      const drawn = await labelsAndWhiskers(c);
      expect(drawn.labels.map(l => l.text)).toEqual([expect.stringContaining(v.speedup)]);
      for (const label of drawn.labels) {
        expect(
          drawn.whiskers.filter(w => overlaps(label, w)),
          label.text
        ).toEqual([]);
      }
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

  test(`the card's speedup label lies clear of its whisker; a card with nothing timed draws no chart (${theme})`, async ({
    page
  }) => {
    await setTheme(page, theme);
    await openVerdictNotebook(page);
    // 1.42× faster, the compiled bar's whisker 20% of its median above it: the label lay across the whisker
    const whisker = card(page, WHISKER_RUN);
    await whisker.waitFor();
    const drawn = await labelsAndWhiskers(whisker);
    expect(drawn.labels.map(l => l.text)).toEqual(['1.42× faster [1.39×–1.44×] 95% CI']);
    expect(drawn.whiskers).toHaveLength(2);
    const [label] = drawn.labels;
    console.log(`${theme}: the label is ${(label.bottom - label.top).toFixed(1)} px high`);
    expect(drawn.whiskers.filter(w => overlaps(label, w))).toEqual([]);
    const compiled = drawn.whiskers.reduce((a, b) => (b.left > a.left ? b : a)); // the right-hand bar's
    expect(label.bottom).toBeLessThanOrEqual(compiled.top); // above it, centred on it
    expect(Math.abs((label.left + label.right) / 2 - (compiled.left + compiled.right) / 2)).toBeLessThan(2);
    // inside the chart, below its title
    const title = await whisker.locator('.gtitle').evaluate(t => t.getBoundingClientRect().bottom);
    expect(label.top).toBeGreaterThanOrEqual(title);
    await whisker.scrollIntoViewIfNeeded();
    await shot(page, `card-whisker-${theme}`);

    // eager failed: "Median time per variant … no variant was timed" took 220 px of the card, blank but that line
    const untimed = card(page, UNTIMED_RUN);
    await expect(untimed.locator('.cp-Card-headline')).toContainText('eager run failed');
    await expect(untimed.locator('.cp-Card-open')).toBeVisible();
    await expect(untimed.locator('.cp-Card-chart')).toHaveCount(0);
    await expect(untimed).not.toContainText('no variant was timed');
    await untimed.evaluate(n => n.scrollIntoView({ block: 'center' })); // with its cell above it
    await shot(page, `card-untimed-${theme}`);
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
