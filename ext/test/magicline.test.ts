import { hasMagicLine, magicLine, profiledCell, quoteArg, withOption } from '../src/magicline';
import { IVariant } from '../src/types';

const BODY = 'x = torch.randn(8)\ny = x.relu()';
const eager: IVariant = { name: 'eager' };
const inductor = (over: Partial<IVariant> = {}): IVariant => ({
  name: 'inductor/default',
  backend: 'inductor',
  mode: null,
  dynamic: null,
  fullgraph: false,
  options: {},
  ...over
});

describe('magicLine', () => {
  it("is the run's own %%compile_profile line, as typed, for a run of the magic", () => {
    const run = {
      cell_source: `%%compile_profile --mode max-autotune --repeat 5 --label 'a b'\n${BODY}`,
      variants: [eager, inductor({ mode: 'max-autotune' })],
      label: 'a b'
    };
    expect(hasMagicLine(run)).toBe(true);
    expect(magicLine(run)).toBe("%%compile_profile --mode max-autotune --repeat 5 --label 'a b'");
    expect(profiledCell(run)).toBe(run.cell_source);
  });

  it('is bare for a run of the Python API with the default options', () => {
    const run = { cell_source: BODY, variants: [eager, inductor()], label: '' };
    expect(hasMagicLine(run)).toBe(false);
    expect(magicLine(run)).toBe('%%compile_profile');
    expect(profiledCell(run)).toBe(`%%compile_profile\n${BODY}`);
  });

  it("is built from the variants' modes, backend, dynamic, fullgraph and Inductor options, the kept names and label", () => {
    const variants = [
      eager,
      inductor({
        name: 'aot_eager/default',
        backend: 'aot_eager',
        dynamic: false,
        fullgraph: true,
        options: { 'triton.cudagraphs': false, max_autotune_gemm_backends: 'TRITON,ATEN', 'x.y': 3 }
      }),
      inductor({ name: 'aot_eager/max-autotune', backend: 'aot_eager', mode: 'max-autotune', dynamic: false })
    ];
    const run = {
      cell_source: BODY,
      variants,
      label: "it's mine",
      kept_names: ['y'],
      temporaries: ['x']
    };
    expect(magicLine(run)).toBe(
      '%%compile_profile --mode default --mode max-autotune --backend aot_eager --static --fullgraph ' +
        '--options triton.cudagraphs=false --options max_autotune_gemm_backends=TRITON,ATEN --options x.y=3 ' +
        `--keep y --label "it's mine"`
    );
  });

  it('says --dynamic for dynamic=True, nothing for the default', () => {
    const run = { cell_source: BODY, variants: [eager, inductor({ dynamic: true })], label: '' };
    expect(magicLine(run)).toBe('%%compile_profile --dynamic');
  });
});

describe('quoteArg', () => {
  it('leaves plain words, quotes the rest with the quote they do not hold', () => {
    expect(quoteArg('max-autotune')).toBe('max-autotune');
    expect(quoteArg('a b')).toBe("'a b'");
    expect(quoteArg("it's")).toBe('"it\'s"');
    expect(quoteArg('<b>x</b>')).toBe("'<b>x</b>'");
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
