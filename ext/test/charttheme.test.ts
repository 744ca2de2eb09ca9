import {
  chartConfig,
  COLLECTIVES_COLOUR,
  distinctColorway,
  EXTRA_HUES,
  OUTSIDE_COLOUR,
  partColour,
  themedFigure
} from '../src/charttheme';

const dark = { font: '#eee', fontFamily: 'Inter', grid: '#333', line: '#555', colorway: ['#1', '#2'] };

describe('themedFigure', () => {
  const figure = {
    data: [
      { type: 'bar', error_y: { type: 'data', array: [1] } },
      { type: 'box', y: [1, 2] }
    ],
    layout: {
      template: {},
      yaxis: { title: { text: 'ms' } },
      xaxis2: { gridcolor: 'red' },
      title: { text: 'T' }
    }
  };
  const themed = themedFigure(figure, dark, 200);

  it('applies the palette to font, axes, error bars and boxes', () => {
    const layout = themed.layout as any;
    expect(layout.font).toEqual({ family: 'Inter', color: '#eee' });
    expect(layout.yaxis).toMatchObject({ gridcolor: '#333', title: { text: 'ms' } });
    expect(layout.xaxis.gridcolor).toBe('#333');
    expect(layout.colorway).toEqual(['#1', '#2']);
    expect(layout.height).toBe(200);
    expect(layout.title.font.color).toBe('#eee');
    expect((themed.data[0] as any).error_y.color).toBe('#eee');
    expect((themed.data[1] as any).line.color).toBe('#2');
  });

  it('keeps colours the figure set itself', () => {
    expect((themed.layout as any).xaxis2.gridcolor).toBe('red');
  });

  it('does not touch the input figure', () => {
    expect((figure.layout as any).font).toBeUndefined();
    expect((figure.data[0] as any).error_y.color).toBeUndefined();
  });
});

/** WCAG's contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map(i => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('breakdown parts', () => {
  const palette = { ...dark, colorway: ['#c0', '#c1', '#c2', '#c3', '#c4', '#c5'] };
  // render/charts.py breakdown_figure: a trace per part, each naming it in meta.part
  const parts = (keys: string[]) => ({
    data: keys.map(k => ({ type: 'bar', name: k, meta: { part: k }, x: [1], y: ['eager'] })),
    layout: { barmode: 'stack' }
  });
  const colours = (keys: string[]) => themedFigure(parts(keys), palette).data.map((t: any) => t.marker.color);

  it('keeps each part its colour whether or not the run has collectives', () => {
    const plain = ['library', 'generated', 'aten', 'copies', 'outside'];
    const distributed = ['library', 'generated', 'aten', 'copies', 'collectives', 'outside'];
    expect(colours(plain)).toEqual(['#c0', '#c1', '#c2', '#c3', OUTSIDE_COLOUR]);
    expect(colours(distributed)).toEqual(['#c0', '#c1', '#c2', '#c3', COLLECTIVES_COLOUR, OUTSIDE_COLOUR]);
  });

  it('gives every part a colour of its own where the theme makes its accent the success green', () => {
    // JupyterLab's light theme: --jp-success-color1 and --jp-accent-color1 are one green (issue 23)
    const green = { ...dark, colorway: ['#1976d2', '#f57c00', '#388e3c', '#d32f2f', '#388e3c', '#90caf9'] };
    const keys = ['library', 'generated', 'aten', 'copies', 'collectives', 'outside'];
    const all = themedFigure(parts(keys), green).data.map((t: any) => t.marker.color);
    expect(new Set(all).size).toBe(keys.length);
    for (const background of ['#ffffff', '#111111', '#212121']) {
      expect(contrast(OUTSIDE_COLOUR, background)).toBeGreaterThanOrEqual(3);
    }
  });

  it('gives collectives a colour that shows on the light and the dark theme', () => {
    for (const background of ['#ffffff', '#111111', '#212121']) {
      expect(contrast(COLLECTIVES_COLOUR, background)).toBeGreaterThanOrEqual(3);
    }
    expect(palette.colorway).not.toContain(COLLECTIVES_COLOUR);
  });

  it('leaves other traces, and colours a figure set itself, alone', () => {
    expect(partColour(undefined, palette)).toBeNull();
    expect(partColour('toString', palette)).toBeNull();
    expect(partColour('mystery', palette)).toBeNull();
    const own = { data: [{ type: 'bar', meta: { part: 'library' }, marker: { color: 'red' } }], layout: {} };
    expect((themedFigure(own, palette).data[0] as any).marker.color).toBe('red');
    expect(
      (themedFigure({ data: [{ type: 'bar', x: [1] }], layout: {} }, palette).data[0] as any).marker
    ).toBeUndefined();
  });
});

describe('chart config', () => {
  it('offers no way to send a chart to plotly cloud, whatever the figure asks', () => {
    const config = chartConfig({ plotlyServerURL: 'https://plot.ly', showSendToCloud: true });
    expect(config.showSendToCloud).toBe(false);
    expect(config.showEditInChartStudio).toBe(false);
    expect(config.modeBarButtonsToRemove).toContain('sendDataToCloud');
    expect(config.displaylogo).toBe(false);
  });

  it('puts a title on the left, clear of the modebar', () => {
    const themed = themedFigure({ data: [], layout: { title: { text: 'Where a call’s time goes' } } }, dark);
    expect(themed.layout?.title).toMatchObject({ x: 0, xanchor: 'left' });
    const placed = themedFigure({ data: [], layout: { title: { text: 't', x: 0.5 } } }, dark);
    expect(placed.layout?.title).toMatchObject({ x: 0.5 });
  });
});

describe('distinctColorway', () => {
  it('drops a theme colour that repeats another and adds hues no theme has', () => {
    const way = distinctColorway(['#1976d2', '#f57c00', '#388E3C', '#d32f2f', ' #388e3c', '#90caf9']);
    expect(way.slice(0, 5)).toEqual(['#1976d2', '#f57c00', '#388E3C', '#d32f2f', '#90caf9']);
    expect(way.slice(5)).toEqual([...EXTRA_HUES]);
    expect(new Set(way.map(c => c.toLowerCase())).size).toBe(way.length);
  });
});
