/** guards.ts: the Guards tab's sections and recompiles, in the digest's words; nothing for older runs. */

import { guardSections, recompileItems, sectionTitle } from '../src/guards';
import { IGraphGuards, IRecompileRow, IRunDigest } from '../src/types';
import { summary } from './fixtures';

const GRAPH: IGraphGuards = {
  graph_id: 'g0',
  variant: 'inductor/default',
  compile_id: '0/0',
  total: 4,
  by_kind: { tensor: 1, shape: 2, 'global state': 1 },
  kinds_text: '1 tensor, 2 shape, 1 global state',
  groups: [
    { kind: 'tensor', source: "G['x']", line: 1, count: 1, codes: ["check_tensor(G['x'], Tensor, ...)"] },
    {
      kind: 'shape',
      source: "G['x']",
      line: 1,
      count: 2,
      codes: ["G['x'].size()[0] == 8", "G['x'].stride()[0] == 1"]
    },
    { kind: 'global state', source: '', line: null, count: 1, codes: ['___check_global_state()'] }
  ]
};

const RECOMPILE: IRecompileRow = {
  variant: 'inductor/default',
  reason: 'size mismatch at index 0. expected 8, actual 16',
  during_timing: true,
  source: "G['x']",
  line: 1,
  failed_guard: "the guard on G['x'] (cell line 1) failed"
};

function digest(extra: Partial<IRunDigest>): IRunDigest {
  return { ...summary('r', ''), ...extra };
}

describe('guardSections', () => {
  it("keeps the digest's kinds_text and groups, in its order", () => {
    const [section] = guardSections(digest({ guards: [GRAPH] }));
    expect(section.kindsText).toBe('1 tensor, 2 shape, 1 global state');
    expect(section.total).toBe(4);
    expect(section.rows.map(r => [r.kind, r.source, r.line, r.count])).toEqual([
      ['tensor', "G['x']", 1, 1],
      ['shape', "G['x']", 1, 2],
      ['global state', '', null, 1]
    ]);
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
      rows: [{ kind: 'type', source: '', line: null, count: 0, codes: ['ok'] }]
    });
    expect(sectionTitle(section)).toBe('g1');
  });
});

describe('recompileItems', () => {
  it('words each recompile with its failed guard and reason', () => {
    expect(recompileItems(digest({ recompiles: [RECOMPILE] }))).toEqual([
      {
        variant: 'inductor/default',
        failedGuard: "the guard on G['x'] (cell line 1) failed",
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
