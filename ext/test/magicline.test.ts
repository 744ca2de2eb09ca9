import { hasMagicLine, profiledCell, withOption } from '../src/magicline';
import { IRunDigest } from '../src/types';

const BODY = 'x = torch.randn(8)\ny = x.relu()';

/** A run as the server sends it, its digest holding the magic line (RunDigest.magic_line) alone. */
function served(cell_source: string, magic_line: string | undefined) {
  return {
    cell_source,
    summary: (magic_line === undefined ? undefined : { magic_line }) as IRunDigest | undefined
  };
}

describe('profiledCell', () => {
  it("is the run's own cell for a run of the magic: the digest's line is the line as typed", () => {
    const typed = "%%compile_profile --mode max-autotune --repeat 5 --label 'a b'";
    const run = served(`${typed}\n${BODY}`, typed);
    expect(hasMagicLine(run)).toBe(true);
    expect(profiledCell(run)).toBe(run.cell_source);
  });

  it("puts the digest's line, as it is, above the code of a run of the Python API", () => {
    // the digest builds the line from the run's options (tests/test_magic_line.py round-trips it through the
    // magic's parser); the panel builds nothing: a line no options would give is shown as it came
    const run = served(BODY, '%%compile_profile DIGEST-LINE');
    expect(hasMagicLine(run)).toBe(false);
    expect(profiledCell(run)).toBe(`%%compile_profile DIGEST-LINE\n${BODY}`);
  });

  it('is the bare magic line where the digest sent none', () => {
    expect(profiledCell(served(BODY, undefined))).toBe(`%%compile_profile\n${BODY}`);
  });
});

describe('withOption', () => {
  it("adds the option to the cell's %%compile_profile line and keeps its code as it was", () => {
    const cell = '%%compile_profile --mode max-autotune  \ny = model(x)\nz = y + 1';
    expect(withOption(cell, '--bisect')).toBe(
      '%%compile_profile --mode max-autotune --bisect\ny = model(x)\nz = y + 1'
    );
  });
  it('leaves a line that has the option already, and a cell with no such line, unchanged', () => {
    expect(withOption('%%compile_profile --bisect --quick\ny = f(x)', '--bisect')).toBe(
      '%%compile_profile --bisect --quick\ny = f(x)'
    );
    expect(withOption('y = f(x)', '--bisect')).toBe('y = f(x)');
    expect(withOption('%%compile_profile', '--bisect')).toBe('%%compile_profile --bisect');
  });
});
