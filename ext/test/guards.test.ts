/** guards.ts: the Guards tab's sections and recompiles, in the digest's words; nothing for older runs. */

import { cellLine, guardSections, recompileItems, sectionTitle } from '../src/guards';
import { IGraphGuards, IRecompileRow, IRunDigest } from '../src/types';
import { summary } from './fixtures';

const GRAPH: IGraphGuards = {
  graph_id: 'g0',
  variant: 'inductor/default',
  compile_id: '0/0',
  total: 5,
  by_kind: { tensor: 1, shape: 2, value: 1, 'global state': 1 },
  kinds_text: '1 tensor, 2 shape, 1 value, 1 global state',
  groups: [
    {
      kind: 'tensor',
      source: "m's parameters",
      line: 1,
      count: 1,
      codes: ["check_tensor(G['m']._modules['0']._parameters['weight'], Tensor, ...)"],
      warning: ''
    },
    {
      kind: 'shape',
      source: "G['x']",
      line: 1,
      count: 2,
      codes: ["G['x'].size()[0] == 8", "G['x'].stride()[0] == 1"],
      warning: ''
    },
    {
      kind: 'value',
      source: 's',
      line: 2,
      count: 1,
      codes: ["L['___stack0'] == 56.15234375"],
      warning:
        'recompiles when the value changes (each new value under dynamic=False; by default the first change, after which Dynamo makes it dynamic): s, what loss.item() returned at cell line 2 (compiled for 56.15…)'
    },
    {
      kind: 'global state',
      source: '',
      line: null,
      count: 1,
      codes: ['___check_global_state()'],
      warning: ''
    }
  ]
};

const RECOMPILE: IRecompileRow = {
  variant: 'inductor/default',
  reason: 'size mismatch at index 0. expected 8, actual 16',
  during_timing: true,
  source: "G['x']",
  line: 1,
  failed_guard:
    'x (cell line 1) changed dim 0: 8 → 16; fix: compile with dynamic=True, or torch._dynamo.mark_dynamic(x, 0) on each new x before the compiled code reads it',
  value: 'x (cell line 1)',
  changed: 'dim 0: 8 → 16',
  fix: 'compile with dynamic=True, or torch._dynamo.mark_dynamic(x, 0) on each new x before the compiled code reads it'
};

function digest(extra: Partial<IRunDigest>): IRunDigest {
  return { ...summary('r', ''), ...extra };
}

describe('guardSections', () => {
  it("keeps the digest's kinds_text and groups, in its order", () => {
    const [section] = guardSections(digest({ guards: [GRAPH] }));
    expect(section.kinds_text).toBe('1 tensor, 2 shape, 1 value, 1 global state');
    expect(section.total).toBe(5);
    expect(section.groups.map(r => [r.kind, r.source, r.line, r.count])).toEqual([
      ['tensor', "m's parameters", 1, 1],
      ['shape', "G['x']", 1, 2],
      ['value', 's', 2, 1],
      ['global state', '', null, 1]
    ]);
    expect(section.groups.map(r => r.warning)).toEqual(['', '', GRAPH.groups[2].warning, '']);
    expect(section.groups[1].codes).toEqual(["G['x'].size()[0] == 8", "G['x'].stride()[0] == 1"]);
    expect(sectionTitle(section)).toBe('g0 · inductor/default · compile 0/0');
    expect(sectionTitle({ ...section, variant: '', compile_id: '' })).toBe('g0');
  });

  it('yields nothing for a run older than the guards', () => {
    expect(guardSections(summary('r', ''))).toEqual([]);
    expect(guardSections(undefined)).toEqual([]);
  });
});

describe('recompileItems', () => {
  it('words each recompile with its failed guard and reason', () => {
    expect(recompileItems(digest({ recompiles: [RECOMPILE] }))).toEqual([RECOMPILE]);
  });

  it("yields nothing for a run older than the recompiles' words", () => {
    expect(recompileItems(summary('r', ''))).toEqual([]);
    expect(recompileItems(null)).toEqual([]);
  });
});

describe('cellLine', () => {
  it('reveals a positive whole line only: a value on no line, or on line 0, shows none', () => {
    expect(cellLine(3)).toBe(3);
    expect([cellLine(null), cellLine(0), cellLine(-1), cellLine(1.5)]).toEqual([null, null, null, null]);
  });
});
