/**
 * A distributed job (issue 14) in the panel and in its main-area tab (ext/src/jobwidget.tsx).
 * seed_runs.py seeds a gloo job of two ranks built from one fixture run, rank 1 with an extra Dynamo
 * graph and a compile three times as long (rank 0's compiled call waiting for it), both split into DDP
 * buckets, and writes the job digest's words (digest/job.py) to expected.json: the panel lists both ranks
 * under one job row, the job's tab shows a row per rank with the digest's words (eager and compiled medians,
 * correctness), rank 1 marked with the digest's reasons, rank 0's note that it waits for rank 1, the peak
 * memory and DDP bucket order notes once under the table, in the light and the dark theme.
 */
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { luminance, normalizeColour } from './colours';
import { openPanel, PANEL, runDetail } from './rundetail';

const ARTIFACTS = process.env.CP_UI_ARTIFACTS ?? path.resolve(__dirname, '..', '..', 'test-artifacts');
const JOB = 'uijob0000001';
const RANK_RUNS = ['uijobrank000', 'uijobrank001'];

interface IExpectedJob {
  job_id: string;
  headline: string;
  compile_spread: string;
  missing_ranks: number[];
  rows: {
    rank: number;
    run_id: string;
    host: string;
    speedup_text: string;
    interval_text: string;
    compile_text: string;
    graphs: number;
    cell_runs: number;
    divergent: boolean;
    reasons: string[];
    eager_text: string;
    compiled_text: string;
    correctness_text: string;
    error_text: string;
    notes: string[];
  }[];
  divergences: string[];
  peak_memory_note: string;
  ddp_note: string;
}

/** Read when a test runs: the seed script writes it as the server starts, after this file is loaded. */
function expectedJob(): IExpectedJob {
  const db = JSON.parse(process.env.CP_SEED_ENV!).COMPILE_PROFILE_DB as string;
  const job = JSON.parse(fs.readFileSync(path.join(path.dirname(db), 'expected.json'), 'utf-8')).job;
  expect(job, "seed_runs.py wrote the job digest's words (digest/job.py)").toBeTruthy();
  return job;
}

test.use({ autoGoto: true });

async function shot(page: IJupyterLabPageFixture, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `ui-${name}.png`) });
}

/** The job's view, in its main-area tab. */
function jobView(page: IJupyterLabPageFixture): Locator {
  return page.locator(`#compile-profile-job-${JOB} .cp-Job[data-job-id="${JOB}"]`);
}

async function openJob(page: IJupyterLabPageFixture, jobId: string): Promise<void> {
  await page.evaluate(async id => {
    const app = (window as any).jupyterapp;
    await app.restored;
    await app.commands.execute('compile-profile:open-job', { jobId: id });
  }, jobId);
}

test('the seeded job has rank 1 diverging, as the digest says', () => {
  const job = expectedJob();
  expect(job.job_id).toBe(JOB);
  expect(job.rows.map(r => [r.rank, r.run_id, r.divergent])).toEqual([
    [0, RANK_RUNS[0], false],
    [1, RANK_RUNS[1], true]
  ]);
  expect(job.rows[1].reasons.length).toBeGreaterThan(0);
  expect(job.rows[1].graphs).toBe(job.rows[0].graphs + 1);
  // rank 0 waits for rank 1 (a note, not a divergence); the notes under the table are there to show
  expect(job.rows[0].notes).toEqual([expect.stringContaining('includes waiting for rank 1')]);
  expect(job.peak_memory_note).toBeTruthy();
  expect(job.ddp_note).toContain('forward order');
});

test("the panel lists a job's ranks under one job row; its tab shows each rank in the digest's words", async ({
  page
}) => {
  const job = expectedJob();
  await openPanel(page);
  const group = page.locator(`${PANEL} .cp-JobItem[data-job-id="${JOB}"]`);
  await expect(group.locator('.cp-JobTitle')).toHaveText(`job ${JOB} · 2 ranks (gloo)`);
  const ranks = group.locator('.cp-RunItem');
  await expect(ranks).toHaveCount(2);
  for (const [i, id] of RANK_RUNS.entries()) {
    await expect(ranks.nth(i)).toHaveAttribute('data-run-id', id);
    await expect(ranks.nth(i).locator('.cp-Rank')).toHaveText(`rank ${i}`);
  }
  // The job's runs are under its row only.
  await expect(page.locator(`${PANEL} .cp-RunList > .cp-RunItem[data-run-id^="uijobrank"]`)).toHaveCount(0);
  await group.scrollIntoViewIfNeeded();
  await shot(page, 'job-panel');

  await page.sidebar.close('left'); // the room the table needs beside the panel
  await group.locator('.cp-OpenJob').click();
  const view = jobView(page);
  await expect(view).toBeVisible();
  await expect(page.locator('#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current')).toContainText(`job ${JOB}`);
  await expect(group).toHaveClass(/cp-mod-selected/);
  expect(await view.locator('.cp-JobHeadline').textContent()).toBe(job.headline);
  expect(await view.locator('.cp-JobSpread').textContent()).toBe(job.compile_spread);
  await expect(view.locator('.cp-JobMissing')).toHaveCount(job.missing_ranks.length ? 1 : 0);

  const rows = view.locator('.cp-JobRow');
  await expect(rows).toHaveCount(job.rows.length);
  for (const [i, r] of job.rows.entries()) {
    const row = rows.nth(i);
    await expect(row).toHaveAttribute('data-run-id', r.run_id);
    const cells = row.locator('th, td');
    await expect(cells.nth(0)).toHaveText(String(r.rank));
    await expect(cells.nth(1)).toHaveText(r.host);
    await expect(cells.nth(2)).toHaveText(r.eager_text);
    await expect(cells.nth(3)).toHaveText(r.compiled_text);
    await expect(cells.nth(4)).toHaveText(`${r.speedup_text} ${r.interval_text}`);
    await expect(cells.nth(5)).toHaveText(r.compile_text);
    await expect(cells.nth(6)).toHaveText(String(r.graphs));
    await expect(cells.nth(-2)).toHaveText(r.correctness_text);
    await expect(cells.last()).toHaveText(String(r.cell_runs));
    const rank = view.locator(`tbody.cp-JobRank[data-rank="${r.rank}"]`);
    if (r.divergent) {
      await expect(rank).toHaveClass(/cp-mod-divergent/);
    } else {
      await expect(rank).not.toHaveClass(/cp-mod-divergent/);
    }
    // The digest's reasons, each as its own item, exactly.
    const reasons = rank.locator('.cp-JobReasons li');
    await expect(reasons).toHaveCount(r.reasons.length);
    expect(await reasons.allTextContents()).toEqual(r.reasons);
    // Its notes (time it spent waiting for a diverging rank) and its error, each once, exactly.
    expect(await rank.locator('.cp-JobNotes li').allTextContents()).toEqual(r.notes);
    await expect(rank.locator('.cp-JobError')).toHaveCount(r.error_text ? 1 : 0);
  }
  // What the peak memory and DDP buckets columns cannot say in a cell, said once under the table.
  expect(await view.locator('.cp-JobTableNote').allTextContents()).toEqual(
    [job.peak_memory_note, job.ddp_note].filter(note => note)
  );
  // Every divergence the digest names shows, under its rank's row.
  expect(await view.locator('.cp-JobReasons li').allTextContents()).toEqual(job.divergences);
  await expect(view.locator('.cp-JobDivergences')).toHaveCount(0);

  // The divergent row stands out from the others.
  const background = (rank: number) =>
    view.locator(`.cp-JobRow[data-rank="${rank}"]`).evaluate(el => getComputedStyle(el).backgroundColor);
  expect(await background(1)).not.toBe(await background(0));

  // The HTML report is the server's.
  const href = await view.locator('.cp-JobReport').getAttribute('href');
  expect(href).toMatch(new RegExp(`/compile-profile/api/jobs/${JOB}/report$`));
  const report = await page.request.get(href!);
  expect(report.status()).toBe(200);
  expect(report.headers()['content-type']).toContain('text/html');
  await shot(page, 'job-light');

  // A rank's row opens that run's detail.
  await view.locator('.cp-JobRow[data-rank="1"]').click();
  await expect(runDetail(page, RANK_RUNS[1])).toBeVisible();
});

test("the job's tab in the dark theme: rank 1's mark and reasons readable", async ({ page }) => {
  const job = expectedJob();
  await openPanel(page);
  await page.sidebar.close('left');
  await openJob(page, JOB);
  const view = jobView(page);
  await expect(view.locator('.cp-JobRow')).toHaveCount(job.rows.length);
  await page.theme.setDarkTheme();
  const content = page.locator(`#compile-profile-job-${JOB} .cp-JobContent`);
  expect(luminance(await content.evaluate(el => getComputedStyle(el).backgroundColor))).toBeLessThan(0.3);
  // The reasons are light text on a dark (tinted) row.
  const reason = view.locator('tbody.cp-mod-divergent .cp-JobReasons li').first();
  const text = await normalizeColour(page, await reason.evaluate(el => getComputedStyle(el).color));
  expect(luminance(text)).toBeGreaterThan(0.6);
  const row = view.locator('.cp-JobRow[data-rank="1"]');
  const composite = await row.evaluate(el => {
    // The row's tint is translucent: what shows is the tint over the tab's background.
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = getComputedStyle(el.closest('.cp-JobContent')!).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    ctx.fillStyle = getComputedStyle(el).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)).join(',');
  });
  expect(luminance(composite)).toBeLessThan(0.35);
  await shot(page, 'job-dark');
  await page.theme.setLightTheme();
});

test('an unknown job says so in its tab', async ({ page }) => {
  await openJob(page, 'nosuchjob001');
  await expect(page.locator('#compile-profile-job-nosuchjob001 .cp-Error')).toContainText(
    'Cannot load job nosuchjob001: 404'
  );
});
