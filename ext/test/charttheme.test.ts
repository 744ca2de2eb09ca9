import { themedFigure } from '../src/charttheme';

const dark = { font: '#eee', fontFamily: 'Inter', grid: '#333', line: '#555', colorway: ['#1', '#2'] };

describe('themedFigure', () => {
  const figure = {
    data: [{ type: 'bar', error_y: { type: 'data', array: [1] } }, { type: 'box', y: [1, 2] }],
    layout: { template: {}, yaxis: { title: { text: 'ms' } }, xaxis2: { gridcolor: 'red' }, title: { text: 'T' } }
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
