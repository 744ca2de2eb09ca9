/**
 * The answer first (issue 23): the card under a profiled cell shows the digest's diagnosis heading and
 * its first three causes (title, cost in bold, action muted), "… N more in the detail", and the --sweep
 * recommendation with its torch.compile call and a Copy button; the run's Overview lists every cause
 * before the variants table; Compare colours and arrows a change only beyond both runs' intervals and
 * reads in the 400 px sidebar.  seed_runs.py seeds the diagnosed run (five causes, one quoting a cell
 * line with markup in it) in diagnosis.ipynb, and writes the digest's words to expected.json.
 * Screenshots at 1600×1000, light and dark, go to test-artifacts/ui-diagnosis-*.png.
 */
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { openPanel, openRun, PANEL } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS || path.resolve(__dirname, '..', '..', 'test-artifacts');
const THEMES = ['light', 'dark'] as const;

test.use({ autoGoto: true, viewport: { width: 1600, height: 1000 } });

interface ICauseWords {
  kind: string;
  title: string;
  cost_text: string;
  action: string;
}

interface IExpected {
  diagnosis: {
    id: string;
    heading: string;
    causes: ICauseWords[];
    cause_lines: (number | null)[]; // each cause's cell line, null where it has none
    recommendation: { call: string; text: string };
  };
  compare: {
    a: string;
    b: string;
    deltas: { metric: string; change_text: string; better: string; within_noise: boolean }[];
  };
}

function expected(): IExpected {
  const db = JSON.parse(process.env.CP_SEED_ENV!).COMPILE_PROFILE_DB as string;
  return JSON.parse(fs.readFileSync(path.join(path.dirname(db), 'expected.json'), 'utf-8'));
}

async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-diagnosis-${name}.png`) });
}

async function setTheme(page: IJupyterLabPageFixture, theme: 'light' | 'dark'): Promise<void> {
  const light = (await page.evaluate(() => document.body.dataset.jpThemeLight)) !== 'false';
  if (theme === 'dark' && light) {
    await page.theme.setDarkTheme();
  } else if (theme === 'light' && !light) {
    await page.theme.setLightTheme();
  }
}

async function openDiagnosisNotebook(page: IJupyterLabPageFixture): Promise<Locator> {
  await page.evaluate(async () => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('docmanager:open', { path: 'diagnosis.ipynb' });
  });
  const card = page.locator(`.jp-NotebookPanel .cp-Card[data-run-id="${expected().diagnosis.id}"]`);
  await card.waitFor();
  return card;
}

/** Each cause as the view shows it: title, cost and action, read as text. */
async function causesShown(list: Locator): Promise<ICauseWords[]> {
  return list.locator('.cp-Cause').evaluateAll(items =>
    items.map(li => ({
      kind: (li as HTMLElement).dataset.kind ?? '',
      title: li.querySelector('.cp-Cause-title')?.textContent ?? '',
      cost_text: li.querySelector('.cp-Cause-cost')?.textContent ?? '',
      action: li.querySelector('.cp-Cause-action')?.textContent ?? ''
    }))
  );
}

/** What JupyterLab's Clipboard put on the copy event (a listener on window runs after its own). */
async function listenForCopy(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => {
    (window as any).__copied = undefined;
    window.addEventListener('copy', e => {
      (window as any).__copied = e.clipboardData?.getData('text/plain');
    });
  });
}

for (const theme of THEMES) {
  test(`the card shows the diagnosis first and copies the recommended call (${theme})`, async ({ page }) => {
    const { diagnosis } = expected();
    expect(diagnosis.causes.length, 'the seeded run has more causes than the card shows').toBeGreaterThan(3);
    await setTheme(page, theme);
    const card = await openDiagnosisNotebook(page);
    const box = card.locator('.cp-Card-diagnosis');
    await expect(box.locator('.cp-Diagnosis-heading')).toHaveText(diagnosis.heading);
    // the first three, in the digest's order, with its words as text
    expect(await causesShown(box)).toEqual(diagnosis.causes.slice(0, 3));
    await expect(box.locator('.cp-Diagnosis-more')).toHaveText(
      `… ${diagnosis.causes.length - 3} more in the detail`
    );
    // under the headline, above the verdict and the chart
    const order = await card.evaluate(node =>
      [
        '.cp-Card-head',
        '.cp-Card-diagnosis',
        '.cp-Card-recommendation',
        '.cp-Card-verdict',
        '.cp-Card-chart'
      ].map(sel => {
        const found = node.querySelector(sel);
        return found ? found.getBoundingClientRect().top : -1;
      })
    );
    expect(order.every(top => top >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    // a cause's title quotes the cell line's markup: shown as text, never run as HTML
    const markup = diagnosis.causes.find(c => c.title.includes('<img'));
    expect(markup).toBeTruthy();
    await expect(box.locator('.cp-Cause-title', { hasText: '<img src=x' })).toHaveCount(1);
    await expect(card.locator('img[src="x"], .cp-Card-summary b')).toHaveCount(0);
    expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
    // the cost bold, the action muted (its colour not the title's)
    const weight = await box
      .locator('.cp-Cause-cost')
      .first()
      .evaluate(n => parseInt(getComputedStyle(n).fontWeight, 10));
    expect(weight).toBeGreaterThanOrEqual(600);
    const [titleColour, actionColour] = await box
      .locator('.cp-Cause')
      .first()
      .evaluate(li => [
        getComputedStyle(li.querySelector('.cp-Cause-title')!).color,
        getComputedStyle(li.querySelector('.cp-Cause-action')!).color
      ]);
    expect(actionColour).not.toBe(titleColour);

    const rec = card.locator('.cp-Card-recommendation');
    await expect(rec.locator('.cp-Recommendation-text')).toHaveText(diagnosis.recommendation.text);
    await expect(rec.locator('code')).toHaveText(diagnosis.recommendation.call);
    await card.scrollIntoViewIfNeeded();
    await shot(page, `card-${theme}`);
    await listenForCopy(page);
    await rec.locator('button.cp-Recommendation-copy').click();
    expect(await page.evaluate(() => (window as any).__copied)).toBe(diagnosis.recommendation.call);
    await expect(rec.locator('button.cp-Recommendation-copy')).toHaveText('Copied');
  });
}

test('"… N more in the detail" opens the run, whose Overview lists every cause', async ({ page }) => {
  const { diagnosis } = expected();
  const card = await openDiagnosisNotebook(page);
  await card.locator('.cp-Diagnosis-more').click();
  const detail = page.locator(`#compile-profile-run-${diagnosis.id} .cp-Detail`);
  await expect(detail).toBeVisible();
  expect(await causesShown(detail.locator('.cp-Overview-diagnosis'))).toEqual(diagnosis.causes);
});

for (const theme of THEMES) {
  test(`the Overview puts the whole diagnosis and the recommendation before the variants table (${theme})`, async ({
    page
  }) => {
    const { diagnosis } = expected();
    await setTheme(page, theme);
    const detail = await openRun(page, diagnosis.id, 'Overview');
    const overview = detail.locator('.cp-Overview');
    await expect(overview.locator('.cp-Diagnosis-heading')).toHaveText(diagnosis.heading);
    expect(await causesShown(overview.locator('.cp-Overview-diagnosis'))).toEqual(diagnosis.causes);
    // in the document's order: the diagnosis, the recommendation, then the variants table
    const order = await overview.evaluate(node => {
      const all = Array.from(node.querySelectorAll('*'));
      return ['.cp-Overview-diagnosis', '.cp-Overview-recommendation', 'table.cp-Table'].map(sel =>
        all.indexOf(node.querySelector(sel)!)
      );
    });
    expect(order.every(i => i >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    const rec = overview.locator('.cp-Overview-recommendation');
    await expect(rec.locator('code')).toHaveText(diagnosis.recommendation.call);
    await shot(page, `overview-${theme}`);
    await listenForCopy(page);
    await rec.locator('button.cp-Recommendation-copy').click();
    expect(await page.evaluate(() => (window as any).__copied)).toBe(diagnosis.recommendation.call);
  });
}

test("a cause on a cell line shows that line in the notebook from the run's Overview", async ({ page }) => {
  const { diagnosis } = expected();
  const onLine = diagnosis.causes.findIndex(c => c.kind === 'eager_region');
  expect(onLine).toBeGreaterThanOrEqual(0);
  await openDiagnosisNotebook(page);
  const detail = await openRun(page, diagnosis.id, 'Overview');
  const causes = detail.locator('.cp-Overview-diagnosis .cp-Cause');
  // only the causes with a line have the button (the eager region's, and the recompile's at its value's line)
  const withLine = diagnosis.cause_lines.filter(line => line !== null).length;
  expect(withLine).toBeGreaterThanOrEqual(1);
  await expect(detail.locator('.cp-Overview-diagnosis .cp-Cause-line')).toHaveCount(withLine);
  await causes.nth(onLine).locator('.cp-Cause-line').click();
  await expect(page.locator('.jp-NotebookPanel .cp-mod-revealed')).toHaveCount(1);
  const cursor = await page.evaluate(() => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    const editor = panel.content.activeCell.editor;
    return editor.getLine(editor.getCursorPosition().line) as string;
  });
  expect(cursor.startsWith('out = z.sum()')).toBe(true);
});

for (const theme of THEMES) {
  test(`Compare marks only changes beyond both runs' intervals and reads in the 400 px sidebar (${theme})`, async ({
    page
  }) => {
    const { compare } = expected();
    const noise = compare.deltas.filter(d => d.within_noise);
    const beyond = compare.deltas.filter(d => !d.within_noise && d.better);
    expect(noise.length, 'the seeded pair has a figure within noise').toBeGreaterThan(0);
    expect(beyond.length, 'and one beyond it').toBeGreaterThan(0);
    await setTheme(page, theme);
    await openPanel(page);
    await page.sidebar.setWidth(400, 'right');
    await page.locator(`${PANEL} .cp-Views .cp-Tab`, { hasText: 'Compare' }).click();
    await page.locator(`${PANEL} select[aria-label="before"]`).selectOption(compare.a);
    await page.locator(`${PANEL} select[aria-label="after"]`).selectOption(compare.b);
    const table = page.locator(`${PANEL} .cp-CompareTable[data-a="${compare.a}"][data-b="${compare.b}"]`);
    await expect(table).toBeVisible();
    // both run ids, in the before and after columns
    await expect(table.locator('tr.cp-CompareIds td')).toHaveText([compare.a, compare.b, '']);
    for (const d of noise) {
      const cell = table.locator(`tr.cp-Delta[data-metric="${d.metric}"] td.cp-DeltaChange`);
      await expect(cell).toHaveText(d.change_text);
      expect(d.change_text).toContain('within noise');
      await expect(cell).toHaveClass(/cp-mod-noise/);
      await expect(cell).not.toHaveClass(/cp-mod-(better|worse)/);
      await expect(cell).not.toHaveAttribute('data-arrow');
    }
    for (const d of beyond) {
      const cell = table.locator(`tr.cp-Delta[data-metric="${d.metric}"] td.cp-DeltaChange`);
      await expect(cell).toHaveText(d.change_text);
      await expect(cell).toHaveClass(d.better === 'b' ? /cp-mod-better/ : /cp-mod-worse/);
      await expect(cell).toHaveAttribute('data-arrow', /^[▲▼]$/);
    }
    // the neutral colour is the theme's muted text, the marked one another
    const colour = (metric: string) =>
      table
        .locator(`tr.cp-Delta[data-metric="${metric}"] td.cp-DeltaChange`)
        .evaluate(td => getComputedStyle(td).color);
    expect(await colour(noise[0].metric)).not.toBe(await colour(beyond[0].metric));
    // it reads in the sidebar: nothing wider than the panel, so nothing scrolls sideways
    const width = await page.locator(PANEL).evaluate(n => n.getBoundingClientRect().width);
    expect(Math.abs(width - 400)).toBeLessThan(20);
    const overflow = await page
      .locator(`${PANEL} .cp-Compare`)
      .evaluate(
        node =>
          [node, ...Array.from(node.querySelectorAll('*'))].filter(
            el => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'hidden'
          ).length
      );
    expect(overflow).toBe(0);
    const tableRight = await table.evaluate(t => t.getBoundingClientRect().right);
    const panelRight = await page.locator(PANEL).evaluate(n => n.getBoundingClientRect().right);
    expect(tableRight).toBeLessThanOrEqual(panelRight + 1);
    await shot(page, `compare-${theme}`);
  });
}
