/**
 * How fast an HTML report opens in Chromium (issue 24, item 3): its first contentful paint and the time until
 * every chart is drawn, from a fresh page each time, the file read from disk (no network).  A benchmark, not a
 * test.  Make the report with `benchmarks/report_size.py --html OUT`, then:
 *
 *     node benchmarks/report_paint.mjs OUT [--repeat 5] [--json out.json]
 */
/* global document, performance, console */
import fs from 'fs';
import path from 'path';
import { chromium } from '@playwright/test';

const args = process.argv.slice(2);
const file = path.resolve(args[0]);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const repeat = Number(option('--repeat', '5'));
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium' });
const rounds = [];
for (let i = 0; i < repeat; i++) {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const started = Date.now();
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  const loaded = Date.now() - started;
  await page.waitForFunction(() => {
    const charts = document.querySelectorAll('[data-figure]');
    return charts.length > 0 && [...charts].every(c => c.querySelector('.main-svg'));
  });
  const charts = Date.now() - started;
  const paint = await page.evaluate(
    () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null
  );
  rounds.push({ first_contentful_paint_ms: paint, load_ms: loaded, charts_drawn_ms: charts });
  await page.close();
}
await browser.close();
const figures = {
  file,
  size_mb: fs.statSync(file).size / 1e6,
  first_contentful_paint_ms: median(rounds.map(r => r.first_contentful_paint_ms)),
  load_ms: median(rounds.map(r => r.load_ms)),
  charts_drawn_ms: median(rounds.map(r => r.charts_drawn_ms)),
  rounds
};
for (const [name, value] of Object.entries(figures)) {
  if (name !== 'rounds') {
    console.log(`FIGURE ${name} ${typeof value === 'number' ? value.toFixed(1) : value}`);
  }
}
const out = option('--json', null);
if (out) {
  fs.writeFileSync(
    out,
    JSON.stringify({ date: new Date().toISOString().slice(0, 10), repeat, ...figures }, null, 1)
  );
}
