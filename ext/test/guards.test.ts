/** guards.ts: the Guards tab's sections and recompiles, in the digest's words; nothing for older runs. */

import { guardSections, recompileItems, sectionTitle } from '../src/guards';
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
    expect(section.kindsText).toBe('1 tensor, 2 shape, 1 value, 1 global state');
    expect(section.total).toBe(5);
    expect(section.rows.map(r => [r.kind, r.source, r.line, r.count])).toEqual([
      ['tensor', "m's parameters", 1, 1],
      ['shape', "G['x']", 1, 2],
      ['value', 's', 2, 1],
      ['global state', '', null, 1]
    ]);
    expect(section.rows.map(r => r.warning)).toEqual(['', '', GRAPH.groups[2].warning, '']);
    expect(section.rows[1].codes).toEqual(["G['x'].size()[0] == 8", "G['x'].stride()[0] == 1"]);
    expect(sectionTitle(section)).toBe('g0 · inductor/default · compile 0/0');
  });

  it('yields nothing for a run older than the guards, and survives malformed entries', () => {
    expect(guardSections(summary('r', ''))).toEqual([]);
    expect(guardSections(undefined)).toEqual([]);
    expect(guardSections(digest({ guards: 'nonsense' as unknown as IGraphGuards[] }))).toEqual([]);
    const odd = { graph_id: 'g1', groups: [null, { kind: 'type', line: 0, codes: [3, 'ok'] }] };
    const [section] = guardSections(digest({ guards: [null, odd] as unknown as IGraphGuards[] }));
    expect(section).toEqual({
      graphId: 'g1',
      variant: '',
      compileId: '',
      total: 0,
      kindsText: '',
      rows: [{ kind: 'type', source: '', line: null, count: 0, codes: ['ok'], warning: '' }]
    });
    expect(sectionTitle(section)).toBe('g1');
  });
});

describe('recompileItems', () => {
  it('words each recompile with its failed guard and reason', () => {
    expect(recompileItems(digest({ recompiles: [RECOMPILE] }))).toEqual([
      {
        variant: 'inductor/default',
        failedGuard: RECOMPILE.failed_guard,
        reason: 'size mismatch at index 0. expected 8, actual 16',
        duringTiming: true,
        line: 1
      }
    ]);
  });

  it('keeps a recompile whose guard is unknown, with no line', () => {
    const unknown = { ...RECOMPILE, failed_guard: '', source: '', line: null, during_timing: false };
    const [item] = recompileItems(digest({ recompiles: [unknown] }));
    expect(item.failedGuard).toBe('');
    expect(item.line).toBeNull();
    expect(item.duringTiming).toBe(false);
  });

  it("yields nothing for a run older than the recompiles' words", () => {
    expect(recompileItems(summary('r', ''))).toEqual([]);
    expect(recompileItems(null)).toEqual([]);
  });
});
