/** linecell.ts: a Lines-tab cell blank where the text view is blank, its time the digest's words as they are, its note. */

import { lineCell } from '../src/linecell';
import { ILineRow } from '../src/types';

function row(extra: Partial<ILineRow> = {}): ILineRow {
  return {
    line: 4,
    code: 'y = torch.relu(x @ x) + 1',
    kernels: {},
    time_ms: {},
    shared: {},
    graph_breaks: 0,
    ...extra
  };
}

describe('lineCell', () => {
  it('is blank where the variant has nothing on the line', () => {
    expect(lineCell('inductor/default', row())).toBeNull();
    expect(lineCell('eager', row({ kernels: { 'inductor/default': ['k0'] } }))).toBeNull();
  });

  it("counts a compiled variant's kernels and those shared with other lines", () => {
    const r = row({
      kernels: { 'inductor/default': ['triton_poi_0', 'extern_mm'] },
      time_ms: { 'inductor/default': 0.2085 },
      shared: { 'inductor/default': 1 },
      texts: { 'inductor/default': '208 µs' }
    });
    expect(lineCell('inductor/default', r)).toEqual({
      time: '208 µs',
      note: '2 kernels, 1 shared',
      title: 'triton_poi_0\nextern_mm'
    });
    const one = row({ kernels: { v: ['k'] }, time_ms: { v: 1.5 } });
    expect(lineCell('v', one)?.note).toBe('1 kernel');
  });

  it('shows a compiled variant that ran only ops outside its compiled graphs on the line, and names them', () => {
    // opt.step() with a fused optimizer Dynamo skipped: no kernel of the variant, its ops run eagerly
    const only = row({
      eager_ops: { 'inductor/default': ['aten::_fused_adamw_'] },
      time_ms: { 'inductor/default': 0.156 },
      texts: { 'inductor/default': '156 µs' }
    });
    expect(lineCell('inductor/default', only)).toEqual({
      time: '156 µs',
      note: 'outside compiled graphs: aten::_fused_adamw_',
      title: 'aten::_fused_adamw_'
    });
    const both = row({
      kernels: { 'inductor/default': ['cpp_fused_0'] },
      eager_ops: { 'inductor/default': ['aten::_foreach_add_'] },
      time_ms: { 'inductor/default': 0.2 }
    });
    expect(lineCell('inductor/default', both)?.note).toBe(
      '1 kernel; outside compiled graphs: aten::_foreach_add_'
    );
    expect(lineCell('eager', only)).toBeNull();
  });

  it("names eager's ATen ops on the line", () => {
    const r = row({
      kernels: { eager: ['aten::mm', 'aten::add', 'aten::relu'] },
      time_ms: { eager: 2.25 },
      texts: { eager: '2.25 ms' }
    });
    expect(lineCell('eager', r)).toEqual({
      time: '2.25 ms',
      note: 'aten::mm, aten::add, aten::relu',
      title: 'aten::mm\naten::add\naten::relu'
    });
  });

  it('shows the time of a line whose eager ops were not named, as the text view does', () => {
    const r = row({ kernels: { eager: [] }, time_ms: { eager: 0.03125 }, texts: { eager: '31.2 µs' } });
    expect(lineCell('eager', r)).toEqual({ time: '31.2 µs', note: '', title: '' });
  });

  it("shows the digest's words as they are, never a time of its own: a dash where the digest words none", () => {
    // words no formatting would give from time_ms: the cell can only have taken them from the digest
    const r = row({ kernels: { v: ['k'] }, time_ms: { v: 1.5 }, texts: { v: 'DIGEST-WORDS' } });
    expect(lineCell('v', r)?.time).toBe('DIGEST-WORDS');
    expect(lineCell('v', row({ kernels: { v: ['k'] }, time_ms: { v: 1.5 } }))?.time).toBe('—');
    const untimed = row({ kernels: { '': ['cpp_fused_0'] }, time_ms: { '': null }, texts: { '': '—' } });
    expect(lineCell('', untimed)?.time).toBe('—');
  });

  it("shows the digest's words for a withheld pass's line: its share, never a time", () => {
    const r = row({
      kernels: { 'inductor/default': ['cpp_fused_add_mul_0'] },
      time_ms: { 'inductor/default': null },
      share: { 'inductor/default': 0.31 },
      texts: { 'inductor/default': '31% of pass' }
    });
    expect(lineCell('inductor/default', r)?.time).toBe('31% of pass');
  });
});
