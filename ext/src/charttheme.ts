/**
 * Colours for the theme-neutral figures of render/charts.py.  The figures carry no colours, so the
 * frontend adds the current JupyterLab theme's: this module is the pure part (a palette in, a
 * themed copy of the figure out); charts.ts reads the palette from the page's CSS variables.
 */

import { IPlotlyFigure } from './types';
import { isRecord } from './json';

export interface IChartPalette {
  font: string;
  fontFamily: string;
  grid: string;
  line: string;
  colorway: string[];
}

/**
 * Where each part of the breakdown figure (render/charts.py breakdown_figure names it in each trace's
 * meta.part) takes its colour from the colorway: the places the parts have always had, so a part keeps
 * its colour whether or not a run has collectives (which come between copies and outside kernels).
 */
export const PART_COLOURWAY_INDEX: Readonly<Record<string, number>> = {
  library: 0,
  generated: 1,
  aten: 2,
  copies: 3
};

/**
 * The time outside kernels (Python, guards, launches): a brown of its own.  It took the colorway's
 * accent colour, which JupyterLab's light theme sets to the same green as the success colour ATen's
 * kernels take, so the two parts read as one.  A contrast of at least 3:1 against the light theme's white
 * and the dark theme's #111 and #212121 backgrounds (4.5, 4.2 and 3.6).
 */
export const OUTSIDE_COLOUR = '#8d6e63';

/**
 * The collectives part of a distributed run's breakdown: a mid purple, a hue none of the colorway's
 * theme variables has, with a contrast of at least 3:1 (WCAG's bar for graphics) against the light
 * theme's white and the dark theme's #111 and #212121 backgrounds (4.8, 3.9 and 3.3).
 */
export const COLLECTIVES_COLOUR = '#ab47bc';

/**
 * The bar of a call whose parts are withheld (its profiler pass could not be read as the timed call's:
 * digest/kernel_times.py): a mid grey, no part's hue, with a contrast of at least 3:1 against the light
 * theme's white and the dark theme's #111 and #212121 backgrounds (3.5, 5.5 and 4.7).
 */
export const WITHHELD_COLOUR = '#8a8a8a';

/**
 * Hues added after the theme's own colours: a figure with more series than the theme has distinct colours (the
 * compile timeline's parts of the stack) keeps them apart.  Purple, pink and brown-grey, none of them a theme's.
 */
export const EXTRA_HUES: readonly string[] = ['#7e57c2', '#c2185b', '#78909c'];

/**
 * The theme's colours without repeats, then the extra hues: two theme variables can resolve to one colour
 * (JupyterLab's light theme gives --jp-success-color1 and --jp-accent-color1 the same green), and a colorway
 * that repeats one draws two series alike.
 */
export function distinctColorway(colours: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const colour of [...colours, ...EXTRA_HUES]) {
    const key = colour.trim().toLowerCase();
    if (key && !seen.has(key)) {
      seen.add(key);
      out.push(colour.trim());
    }
  }
  return out;
}

/** A breakdown part's colour in this palette; null for a trace that names no part it knows. */
export function partColour(part: unknown, palette: IChartPalette): string | null {
  if (part === 'collectives') {
    return COLLECTIVES_COLOUR;
  }
  if (part === 'withheld') {
    return WITHHELD_COLOUR;
  }
  if (part === 'outside') {
    return OUTSIDE_COLOUR;
  }
  if (typeof part !== 'string' || !Object.prototype.hasOwnProperty.call(PART_COLOURWAY_INDEX, part)) {
    return null;
  }
  return palette.colorway.length
    ? palette.colorway[PART_COLOURWAY_INDEX[part] % palette.colorway.length]
    : null;
}

/** The axis keys plotly accepts: xaxis, xaxis2, ..., yaxis, yaxis3, ... */
const AXIS_KEY = /^[xy]axis\d*$/;

/**
 * A copy of `figure` in the palette's colours; the input is left alone (it may be a notebook
 * output's model data).  Explicit colours already in the figure win over the palette's.
 */
export function themedFigure(figure: IPlotlyFigure, palette: IChartPalette, height?: number): IPlotlyFigure {
  const layout: Record<string, unknown> = JSON.parse(JSON.stringify(figure.layout ?? {}));
  const data: Record<string, unknown>[] = JSON.parse(JSON.stringify(figure.data ?? []));
  layout.paper_bgcolor = 'rgba(0,0,0,0)';
  layout.plot_bgcolor = 'rgba(0,0,0,0)';
  layout.font = {
    family: palette.fontFamily,
    color: palette.font,
    ...(isRecord(layout.font) ? layout.font : {})
  };
  layout.colorway = palette.colorway;
  if (height !== undefined) {
    layout.height = height;
  }
  const axisKeys = new Set(Object.keys(layout).filter(k => AXIS_KEY.test(k)));
  axisKeys.add('xaxis');
  axisKeys.add('yaxis');
  for (const key of axisKeys) {
    const axis = isRecord(layout[key]) ? (layout[key] as Record<string, unknown>) : {};
    layout[key] = {
      gridcolor: palette.grid,
      linecolor: palette.line,
      zerolinecolor: palette.line,
      tickcolor: palette.line,
      ...axis
    };
  }
  if (isRecord(layout.title) && !isRecord(layout.title.font)) {
    layout.title = { ...layout.title, font: { color: palette.font } };
  }
  // Error bars and box outlines default to a dark grey that vanishes on a dark background.
  data.forEach((trace, i) => {
    const colour = palette.colorway[i % palette.colorway.length];
    // a breakdown part keeps its colour from run to run (collectives or not), unless the figure set one
    const part = partColour(isRecord(trace.meta) ? trace.meta.part : undefined, palette);
    if (part) {
      trace.marker = { color: part, ...(isRecord(trace.marker) ? trace.marker : {}) };
    }
    for (const key of ['error_y', 'error_x']) {
      if (isRecord(trace[key]) && !('color' in (trace[key] as object))) {
        trace[key] = { ...(trace[key] as object), color: palette.font };
      }
    }
    if (trace.type === 'box' || trace.type === 'violin') {
      trace.line = { color: colour, ...(isRecord(trace.line) ? trace.line : {}) };
    }
  });
  // A title left, where plotly's modebar (top right, on hover) does not cover it
  if (isRecord(layout.title) && !('x' in layout.title)) {
    layout.title = { ...layout.title, x: 0, xanchor: 'left' };
  }
  return { data, layout, config: chartConfig(figure.config) };
}

/**
 * Plotly's config for a run's charts: no plotly logo, and nothing that sends a chart to plotly's cloud
 * (a figure's own config may ask for a server, as plotly's Python figures can; its buttons stay off).
 */
export function chartConfig(own?: Record<string, unknown>): Record<string, unknown> {
  return {
    displaylogo: false,
    responsive: true,
    ...(own ?? {}),
    showSendToCloud: false,
    showEditInChartStudio: false,
    modeBarButtonsToRemove: ['sendDataToCloud', 'editInChartStudio', 'lasso2d', 'select2d']
  };
}
