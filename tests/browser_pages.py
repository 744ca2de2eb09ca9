"""Open HTML files in headless Chromium and report whether any script a payload carried ran.

Each page is opened offline (every http(s) request aborted, as the report promises to need none), with
a dialog listener; every tab of a report (``nav a``) is clicked and every chart hovered, so script that
only a click or a hover would run gets its chance.  What comes back per file: ``window.__xss`` (the
payloads' sentinel, ``None`` when nothing set it), the dialogs that opened, how many ``img`` and
``script`` elements the live DOM holds, and the page's text.  Driven through ``playwright-core`` (from
``npm ci``) with the system Chromium (``make browser``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHECK = r"""
const { chromium } = require('playwright-core');
(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CP_CHROMIUM,
                                          args: ['--no-sandbox', '--headless', '--disable-gpu'] });
  const out = {};
  for (const file of process.argv.slice(2)) {
    const page = await browser.newPage();
    const dialogs = [];
    page.on('dialog', d => { dialogs.push(d.message()); d.dismiss(); });
    await page.route(/^https?:/, route => route.abort());  // offline, as the report promises
    await page.goto('file://' + file);
    await page.waitForLoadState('load');
    for (const link of await page.$$('nav a')) {
      await link.click();
      for (const plot of await page.$$('section:not([hidden]) .js-plotly-plot')) await plot.hover();
    }
    for (const frame of page.frames()) await frame.waitForLoadState('load');
    await page.waitForTimeout(300);
    const sentinel = async f => f.evaluate(() => window.__xss === undefined ? null : window.__xss);
    out[file] = {
      xss: await sentinel(page),
      frames_xss: await Promise.all(page.frames().slice(1).map(sentinel)),
      dialogs,
      imgs: await page.evaluate(() => document.querySelectorAll('img').length),
      scripts: await page.evaluate(() => document.querySelectorAll('script').length),
      text: await page.evaluate(() => document.body.textContent),
      // each iframe's height against its page's: a framed report that scrolls inside its frame reads cut
      frames_fit: await page.evaluate(() => [...document.querySelectorAll('iframe')].map(
        f => [f.clientHeight, f.contentDocument ? f.contentDocument.documentElement.scrollHeight : -1])),
    };
    await page.close();
  }
  await browser.close();
  console.log(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
"""


def open_in_chromium(files: list[Path], workdir: Path) -> dict[str, dict]:
    """Each file's record (see the module docstring), keyed by its path as a string."""
    chromium = os.environ.get("CP_CHROMIUM") or shutil.which("chromium")
    node = shutil.which("node")
    assert chromium and node, "the browser tests need Chromium and Node (make browser setup-js)"
    assert (ROOT / "node_modules" / "playwright-core").is_dir(), "run npm ci (make setup-js)"
    script = workdir / "check_pages.js"
    script.write_text(_CHECK)
    done = subprocess.run(
        [node, str(script), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "NODE_PATH": str(ROOT / "node_modules"), "CP_CHROMIUM": chromium},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
