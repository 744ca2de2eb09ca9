/**
 * The panel and a run's detail (a main-area tab, rundetail.ts opens it) say what Python says (issue 12: each figure derived once, in Python).  seed_runs.py
 * seeds two runs of one cell, one slower than eager and one faster, each with two compiled variants
 * and timed kernels on cell lines, and writes the Python views' words for them to expected.json next
 * to the store: the digest's headline and speedup phrase, its verdict and payback sentences and each
 * variant's breakdown of a call (issue 13), the text view's time per cell line (eager's column
 * first), and the comparison's rows; and what the Guards tab, the Compile tab, the Kernels tab and the
 * Overview show of guards and what was measured (issue 13 §4-5): each Dynamo graph's kinds of
 * guards, each recompile's failed guard, max-autotune's choices, each kernel's roofline sentence,
 * the device's peaks and the memory ratio.  The panel must show those words, character for
 * character, and draw the breakdown and roofline charts (the breakdown in the light and the dark
 * theme) with no page error.
 */
import * as fs from 'fs';
import * as path from 'path';

import { expect, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { normalizeColour, themeFontColour } from './colours';
import { openPanel, PANEL, selectRun } from './rundetail';

test.use({ autoGoto: true });

interface IExpectedRun {
  id: string;
  headline: string;
  phrase: string;
  interval: string;
  variants: string[];
  lines: { line: number; times: Record<string, string> }[];
  verdict: string | null;
  payback: string | null;
  /** per variant, each part of a call and the call as format_ms words them */
  breakdown: { variant: string; parts: Record<BreakdownPart, string> }[];
  /** per Dynamo graph with guards, the digest's words for its kinds ("12 tensor, 3 shape") */
  guards: { graph_id: string; kinds_text: string }[];
  /** per recompile, the digest's words for its failed guard ("" when unknown) */
  recompiles: { failed_guard: string }[];
  /** max-autotune's choices, each as the digest words it */
  autotune: string[];
  /** each kernel's roofline sentence, in the digest's order */
  roofline: string[];
  /** the device's peaks and the memory ratio as the digest words them; null when not measured */
  device_peaks: string | { text: string } | null;
  memory_ratio: string | { text: string } | null;
}

const BREAKDOWN_PARTS = ['library', 'generated', 'aten', 'copies', 'outside', 'call'] as const;
type BreakdownPart = (typeof BREAKDOWN_PARTS)[number];

interface IExpected {
  runs: IExpectedRun[];
  compare: {
    a: string;
    b: string;
    deltas: {
      metric: string;
      a_text: string;
      b_text: string;
      change_text: string;
      better: string;
      within_noise: boolean;
    }[];
  };
}

/** Read when a test runs: the seed script writes it as the server starts, after this file is loaded. */
function expected(): IExpected {
  const db = JSON.parse(process.env.CP_SEED_ENV!).COMPILE_PROFILE_DB as string;
  return JSON.parse(fs.readFileSync(path.join(path.dirname(db), 'expected.json'), 'utf-8'));
}

/** Its text, exactly: toHaveText waits for it but folds runs of whitespace. */
async function expectExactText(locator: Locator, text: string): Promise<void> {
  await expect(locator).toHaveText(text);
  expect(await locator.textContent()).toBe(text);
}

/** How many of a chart's bars plotly drew with an area (a zero part draws an empty path). */
function drawnBars(chart: Locator): Promise<number> {
  return chart.evaluate(
    el =>
      Array.from(el.querySelectorAll('.js-plotly-plot .bars path')).filter(p => {
        const box = p.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
      }).length
  );
}

/** A sentence expected.json gives either as text or as the digest's {text}; null when there is none. */
function wordsOf(value: string | { text: string } | null | undefined): string | null {
  const text = typeof value === 'string' ? value : value?.text;
  return text ? text : null;
}

test('the seeded runs are one slower and one faster than eager', () => {
  const runs = expected().runs;
  expect(runs).toHaveLength(2);
  expect(runs[0].phrase).toMatch(/^\d+\.\d+× slower$/);
  expect(runs[1].phrase).toMatch(/^\d+\.\d+× faster$/);
  // A line's time in one variant with no kernels there: the text view leaves it blank.
  expect(runs.some(r => r.lines.some(l => Object.values(l.times).includes('')))).toBe(true);
  // The breakdown, verdict and payback tests below check something.
  for (const run of runs) {
    expect(run.breakdown.length).toBeGreaterThan(0);
    expect(run.variants[0]).toBe('eager');
  }
  expect(runs.some(r => r.verdict)).toBe(true);
  expect(runs.some(r => r.payback)).toBe(true);
  // So do the guards and measured tests.
  expect(runs.some(r => r.guards.length > 0)).toBe(true);
  expect(runs.some(r => r.recompiles.some(c => c.failed_guard))).toBe(true);
  expect(runs.some(r => r.autotune.length > 0)).toBe(true);
  expect(runs.some(r => r.roofline.length > 0)).toBe(true);
  expect(runs.some(r => wordsOf(r.device_peaks))).toBe(true);
  expect(runs.some(r => wordsOf(r.memory_ratio))).toBe(true);
});

test('the Overview words the speedup as the digest does, a slowdown by its factor above 1', async ({
  page
}) => {
  // Switching runs while the Overview's charts load once crashed the panel (React's removeChild error).
  const pageErrors: string[] = [];
  page.on('pageerror', e => pageErrors.push(e.message));
  await openPanel(page);
  for (const run of expected().runs) {
    const overview = (await selectRun(page, run.id, 'Overview')).locator('.cp-Overview');
    await expect(overview.locator('.cp-Headline')).toHaveText(run.headline);
    await expect(overview.locator('.cp-Speedup strong')).toHaveText(run.phrase);
    // the interval as the text view's timing line words it, not a wording of the panel's own
    await expect(overview.locator('.cp-Interval')).toHaveText(run.interval);
    await expect(overview.locator('.cp-Speedup')).toContainText(run.phrase);
    // Never "0.56× slower": a factor below 1 in front of "slower" contradicts the card.
    await expect(overview).not.toContainText(/\b0\.\d+× slower/);
  }
  expect(pageErrors).toEqual([]);
});

test("the Overview shows the verdict, the payback and where a call's time goes as Python words them", async ({
  page
}) => {
  const pageErrors: string[] = [];
  page.on('pageerror', e => pageErrors.push(e.message));
  await openPanel(page);
  for (const run of expected().runs) {
    const overview = (await selectRun(page, run.id, 'Overview')).locator('.cp-Overview');
    for (const [cls, text] of [
      ['.cp-Verdict', run.verdict],
      ['.cp-Payback', run.payback]
    ] as const) {
      if (text) {
        await expectExactText(overview.locator(cls), text);
      } else {
        await expect(overview.locator(cls)).toHaveCount(0);
      }
    }
    const table = overview.locator('.cp-BreakdownTable');
    await expect(table.locator('thead th[data-part]')).toHaveText([
      'library',
      'generated',
      'ATen',
      'copies',
      'outside kernels',
      'call'
    ]);
    const rows = table.locator('tbody tr');
    await expect(rows).toHaveCount(run.breakdown.length);
    for (const [j, b] of run.breakdown.entries()) {
      const tr = rows.nth(j);
      await expect(tr).toHaveAttribute('data-variant', b.variant);
      await expectExactText(tr.locator('td').first(), b.variant);
      expect(Object.keys(b.parts).sort()).toEqual([...BREAKDOWN_PARTS].sort());
      for (const part of BREAKDOWN_PARTS) {
        await expectExactText(tr.locator(`td[data-part="${part}"]`), b.parts[part]);
      }
    }
    await expect
      .poll(() => drawnBars(overview.locator('.cp-ChartHost[data-chart="breakdown"]')))
      .toBeGreaterThan(0);
  }
  expect(pageErrors).toEqual([]);
});

test('the breakdown chart is drawn in the light and the dark theme', async ({ page }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', e => pageErrors.push(e.message));
  await openPanel(page);
  const run = expected().runs[0];
  const chart = (await selectRun(page, run.id, 'Overview')).locator('.cp-ChartHost[data-chart="breakdown"]');
  // plotly writes a tick label's colour as an inline fill: the theme's text colour.
  const tick = chart.locator('.js-plotly-plot g.xtick text, .js-plotly-plot g.ytick text').first();
  for (const theme of ['light', 'dark', 'light'] as const) {
    if (theme === 'dark') {
      await page.theme.setDarkTheme();
    } else if ((await page.evaluate(() => document.body.dataset.jpThemeLight)) === 'false') {
      await page.theme.setLightTheme();
    }
    expect(await page.evaluate(() => document.body.dataset.jpThemeLight)).toBe(
      theme === 'light' ? 'true' : 'false'
    );
    const font = await themeFontColour(page);
    await expect.poll(() => drawnBars(chart)).toBeGreaterThan(0);
    await expect
      .poll(async () =>
        normalizeColour(page, (await tick.evaluate(el => (el as SVGElement).style.fill)) || '')
      )
      .toBe(font);
  }
  expect(pageErrors).toEqual([]);
});

test("the Lines tab shows the text view's time per cell line, per variant", async ({ page }) => {
  await openPanel(page);
  for (const run of expected().runs) {
    const detail = await selectRun(page, run.id, 'Lines');
    const table = detail.locator('.cp-LineTable');
    await expect(table.locator('thead th[data-variant]')).toHaveText(run.variants);
    // Eager's time per line comes first, its column headed "eager".
    await expect(table.locator('thead th[data-variant]').first()).toHaveAttribute('data-variant', 'eager');
    await expectExactText(table.locator('thead th[data-variant="eager"]'), 'eager');
    expect(run.lines.some(l => l.times.eager)).toBe(true);
    for (const row of run.lines) {
      const tr = table.locator(`tbody tr[data-line="${row.line}"]`);
      await expect(tr).toHaveCount(1);
      for (const [variant, time] of Object.entries(row.times)) {
        const cell = tr.locator(`td[data-variant="${variant}"]`);
        if (time) {
          await expect(cell.locator('.cp-LineTime')).toHaveText(time);
        } else {
          await expect(cell).toHaveText('');
        }
      }
    }
    await expect(detail.locator('.cp-LineRule')).toContainText('split evenly');
    await expect(detail.locator('.cp-Unattributed')).toContainText('tied to no cell line');
  }
});

test("the Compare view shows the comparison's rows as Python words them", async ({ page }) => {
  const { compare } = expected();
  await openPanel(page);
  await page.locator(`${PANEL} .cp-Views .cp-Tab`, { hasText: 'Compare' }).click();
  await page.locator(`${PANEL} select[aria-label="before"]`).selectOption(compare.a);
  await page.locator(`${PANEL} select[aria-label="after"]`).selectOption(compare.b);
  const table = page.locator(`${PANEL} .cp-CompareTable[data-a="${compare.a}"][data-b="${compare.b}"]`);
  const rows = table.locator('tr.cp-Delta');
  await expect(rows.locator('th')).toHaveText(compare.deltas.map(d => d.metric));
  for (const [i, d] of compare.deltas.entries()) {
    const row = rows.nth(i);
    await expect(row.locator('td')).toHaveText([d.a_text, d.b_text, d.change_text]);
    const change = row.locator('td').nth(2);
    if (d.better === 'b') {
      await expect(change).toHaveClass(/(^| )cp-mod-better( |$)/);
    } else if (d.better === 'a') {
      await expect(change).toHaveClass(/(^| )cp-mod-worse( |$)/);
    } else if (d.within_noise) {
      await expect(change).not.toHaveClass(/cp-mod-(better|worse)/);
    } else {
      await expect(change).not.toHaveClass(/cp-mod-/);
    }
  }
});

test("the Guards tab shows each graph's kinds of guards and each recompile's failed guard as Python words them", async ({
  page
}) => {
  const pageErrors: string[] = [];
  page.on('pageerror', e => pageErrors.push(e.message));
  await openPanel(page);
  for (const run of expected().runs) {
    const tab = (await selectRun(page, run.id, 'Guards')).locator('.cp-TabBody[data-tab="Guards"]');
    const sections = tab.locator('.cp-GuardGraph');
    await expect(sections).toHaveCount(run.guards.length);
    for (const [i, g] of run.guards.entries()) {
      await expect(sections.nth(i)).toHaveAttribute('data-graph-id', g.graph_id);
      await expectExactText(sections.nth(i).locator('.cp-GuardKinds'), g.kinds_text);
    }
    if (run.guards.length) {
      // A group's checks fold away; opened, they read as text.
      const codes = sections.first().locator('.cp-GuardCodes').first();
      expect(await codes.getAttribute('open')).toBeNull(); // folded, also after another run's were opened
      await codes.locator('summary').click();
      await expect(codes.locator('pre')).toBeVisible();
      expect((await codes.locator('pre').textContent())?.length).toBeGreaterThan(0);
    }
    const failed = run.recompiles.map(r => r.failed_guard).filter(Boolean);
    await expect(tab.locator('.cp-Recompile')).toHaveCount(run.recompiles.length);
    await expect(tab.locator('.cp-Recompile .cp-FailedGuard')).toHaveText(failed);
    for (const [i, text] of failed.entries()) {
      await expectExactText(tab.locator('.cp-Recompile .cp-FailedGuard').nth(i), text);
    }
  }
  expect(pageErrors).toEqual([]);
});

test("the Compile tab shows max-autotune's choices as Python words them", async ({ page }) => {
  await openPanel(page);
  for (const run of expected().runs) {
    const tab = (await selectRun(page, run.id, 'Compile')).locator('.cp-Compile');
    await expect(tab.locator('.cp-AutotuneText')).toHaveCount(run.autotune.length);
    for (const [i, text] of run.autotune.entries()) {
      await expectExactText(tab.locator('.cp-AutotuneText').nth(i), text);
    }
    await expect(tab.locator('.cp-AutotuneTable tbody tr')).toHaveCount(run.autotune.length);
  }
});

test("the Kernels tab shows each kernel's roofline as Python words it and draws the roofline chart", async ({
  page
}) => {
  const pageErrors: string[] = [];
  page.on('pageerror', e => pageErrors.push(e.message));
  await openPanel(page);
  for (const run of expected().runs) {
    const tab = (await selectRun(page, run.id, 'Kernels')).locator('.cp-Kernels');
    await expect(tab.locator('.cp-KernelTable thead th')).toContainText(['GB/s', 'TFLOP/s']);
    await expect(tab.locator('.cp-RooflineText')).toHaveCount(run.roofline.length);
    for (const [i, text] of run.roofline.entries()) {
      await expectExactText(tab.locator('.cp-RooflineText').nth(i), text);
    }
    if (run.roofline.length) {
      const chart = tab.locator('.cp-ChartHost[data-chart="roofline"]');
      await expect(chart.locator('.js-plotly-plot')).toBeVisible();
      // a bar per kernel with a rate against a device peak
      await expect.poll(() => drawnBars(chart)).toBeGreaterThan(0);
    }
    // The rate columns sort like the others, the largest first (each run's tab keeps its own sort).
    const gbps = tab.locator('.cp-KernelTable thead th', { hasText: 'GB/s' });
    const before = await gbps.getAttribute('aria-sort');
    await gbps.click();
    await expect(gbps).toHaveAttribute('aria-sort', before === 'descending' ? 'ascending' : 'descending');
  }
  expect(pageErrors).toEqual([]);
});

test("the Overview shows the device's peaks and the memory ratio as Python words them", async ({ page }) => {
  await openPanel(page);
  for (const run of expected().runs) {
    const overview = (await selectRun(page, run.id, 'Overview')).locator('.cp-Overview');
    for (const [cls, value] of [
      ['.cp-DevicePeaks', run.device_peaks],
      ['.cp-MemoryRatio', run.memory_ratio]
    ] as const) {
      const text = wordsOf(value);
      if (text) {
        await expectExactText(overview.locator(cls), text);
      } else {
        await expect(overview.locator(cls)).toHaveCount(0);
      }
    }
  }
});

/** The run as the server sends it to the detail: its dict and, under `summary`, its digest (GET runs/<id>). */
async function served(page: import('@jupyterlab/galata').IJupyterLabPageFixture, id: string): Promise<any> {
  const response = await page.request.get(`/compile-profile/api/runs/${id}`);
  expect(response.ok()).toBe(true);
  return response.json();
}

test("the Overview's variants, the Compile tab's compile times and the Kernels tab's cells are the digest's words", async ({
  page
}) => {
  // The panel formats no number (issue 33): each cell shows the served digest's words, character for character.
  await openPanel(page);
  let rated = 0;
  for (const { id } of expected().runs) {
    const run = await served(page, id);
    const digest = run.summary;
    const overview = (await selectRun(page, id, 'Overview')).locator('.cp-Overview');
    const table = overview.locator('table.cp-Table', { has: page.locator('th', { hasText: 'p10–p90' }) });
    for (const v of digest.variants.filter((v: any) => v.n > 0)) {
      const cells = table
        .locator('tbody tr', { has: page.locator('td', { hasText: new RegExp(`^${v.name}$`) }) })
        .locator('td');
      await expectExactText(cells.nth(1), v.median_time);
      await expectExactText(cells.nth(2), `${v.p10_time}–${v.p90_time}`);
      await expectExactText(cells.nth(4), v.compile_time);
      await expectExactText(cells.nth(5), digest.peak_memory[v.name] ?? '—');
    }
    const compile = (await selectRun(page, id, 'Compile')).locator('.cp-Compile');
    for (const v of digest.variants.filter((v: any) => v.compile_s !== null)) {
      const row = compile.locator('tr', { has: page.locator('th', { hasText: `compile ${v.name}` }) });
      await expectExactText(row.locator('td'), v.compile_time);
    }
    const kernels = (await selectRun(page, id, 'Kernels')).locator('.cp-Kernels');
    const rows = kernels.locator('.cp-KernelTable tbody tr');
    await expect(rows.first()).toBeVisible();
    for (let i = 0; i < (await rows.count()); i++) {
      const title = await rows.nth(i).getAttribute('title');
      const at = run.kernels.findIndex(
        (k: any) => (k.variant ? `${k.name} (${k.variant})` : k.name) === title
      );
      expect(at).toBeGreaterThanOrEqual(0);
      const c = digest.kernel_cells[at];
      const rate = (r: string, s: string) => (r !== '—' && s !== '—' ? `${r} · ${s}` : r);
      await expectExactText(rows.nth(i).locator('td[data-field="device_time_ms"]'), c.time);
      await expectExactText(
        rows.nth(i).locator('td[data-field="achieved_gbps"]'),
        rate(c.bandwidth, c.bandwidth_share)
      );
      await expectExactText(
        rows.nth(i).locator('td[data-field="achieved_tflops"]'),
        rate(c.compute, c.compute_share)
      );
      rated += c.bandwidth !== '—' || c.compute !== '—' ? 1 : 0;
    }
  }
  expect(rated).toBeGreaterThan(0); // a rate was compared, not only dashes
});
