import { aggregateByLine, unattributedKernels } from '../src/lines';
import { kernel, run } from './fixtures';

describe('aggregateByLine', () => {
  const r = run({
    kernels: [
      kernel('k_fused', { lines: [2, 3], device_time_ms: 1.0 }),
      kernel('k_three', { lines: [3, 3], device_time_ms: 0.25 }),
      kernel('k_untimed', { lines: [3], device_time_ms: null }),
      kernel('k_nowhere', { lines: [] })
    ],
    graph_breaks: [{ reason: 'print', line: 4 }, { reason: 'lib', line: null }]
  });
  const rows = aggregateByLine(r);

  it('lists each line once, in order, with its code', () => {
    expect(rows.map(row => row.line)).toEqual([2, 3, 4]);
    expect(rows[1].code).toBe('y = x.relu() + 1');
  });

  it('counts a fused kernel towards every line it came from, once per line', () => {
    expect(rows[0].kernels).toEqual(['k_fused']);
    expect(rows[1].kernels).toEqual(['k_fused', 'k_three', 'k_untimed']);
    expect(rows[1].timeMs).toBeCloseTo(1.25);
  });

  it('leaves time unknown where no kernel was measured, and counts breaks', () => {
    expect(rows[2]).toEqual({ line: 4, code: 'print(y)', kernels: [], timeMs: null, graphBreaks: 1 });
  });

  it('reports kernels tied to no line', () => {
    expect(unattributedKernels(r.kernels).map(k => k.name)).toEqual(['k_nowhere']);
  });
});
