import { bodyOf, findCell } from '../src/cellmatch';

const BODY = 'x = torch.randn(8)\ny = x.relu()\nprint(y)';
const CELL = `%%compile_profile --label relu\n${BODY}`;

describe('bodyOf', () => {
  it('drops the magic line only', () => {
    expect(bodyOf(CELL)).toBe(BODY);
    expect(bodyOf(BODY)).toBe(BODY);
    expect(bodyOf('%%time\nx')).toBe('%%time\nx');
  });
});

describe('findCell', () => {
  it('finds the identical cell and keeps the line (run source with the magic line)', () => {
    expect(findCell(['import torch', CELL, 'z = 1'], CELL, 3)).toEqual({ index: 1, editorLine: 2 });
  });

  it('maps a body-only run source onto a cell that has the magic line', () => {
    // line 3 of the body (print) is editor line 3 (0-based) below the magic line
    expect(findCell(['import torch', CELL], BODY, 3)).toEqual({ index: 1, editorLine: 3 });
  });

  it('follows a cell whose magic options were edited since', () => {
    const edited = `%%compile_profile --sweep\n${BODY}`;
    expect(findCell([edited], CELL, 4)).toEqual({ index: 0, editorLine: 3 });
  });

  it('finds the body inside a cell that gained lines above it', () => {
    const grown = `# notes\n# more\n${BODY}\nextra()`;
    expect(findCell(['a', grown], BODY, 2)).toEqual({ index: 1, editorLine: 3 });
  });

  it('prefers the last of identical cells and tolerates trailing whitespace', () => {
    expect(findCell([CELL, 'b', CELL + '\n\n'], CELL, 1)).toEqual({ index: 2, editorLine: 0 });
  });

  it('returns null when no cell holds the code', () => {
    expect(findCell(['a', 'b'], CELL, 2)).toBeNull();
    expect(findCell(['a'], '%%compile_profile\n', 1)).toBeNull();
  });

  it('selects the cell start when there is no line', () => {
    expect(findCell([CELL], CELL, null)).toEqual({ index: 0, editorLine: 0 });
  });
});
