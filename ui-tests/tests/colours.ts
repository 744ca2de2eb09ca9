/**
 * Colour helpers for the theme tests (compile_profile.spec.ts, consistency.spec.ts): a CSS colour
 * as the browser resolves it, a colour's luminance, and the current theme's text colour.
 */
import { IJupyterLabPageFixture } from '@jupyterlab/galata';

/** A CSS colour as "r,g,b" (alpha dropped), as the browser resolves it. */
export async function normalizeColour(page: IJupyterLabPageFixture, colour: string): Promise<string> {
  const resolved = await page.evaluate(c => {
    const probe = document.createElement('div');
    probe.style.color = c;
    document.body.appendChild(probe);
    const out = getComputedStyle(probe).color;
    probe.remove();
    return out;
  }, colour);
  return (resolved.match(/[\d.]+/g) ?? []).slice(0, 3).join(',');
}

export function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? ['255', '255', '255']).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

/** The current theme's text colour (--jp-ui-font-color1) as "r,g,b". */
export async function themeFontColour(page: IJupyterLabPageFixture): Promise<string> {
  const colour = await page.evaluate(() =>
    getComputedStyle(document.body).getPropertyValue('--jp-ui-font-color1').trim()
  );
  return normalizeColour(page, colour);
}
