import { compareRuns, kernelKey } from '../src/compare';
import { kernel, run } from './fixtures';

describe('compareRuns', () => {
  const before = run({
    kernels: [kernel('triton_poi_fused_add_0'), kernel('triton_poi_fused_add_1'), kernel('cpp_fused_relu_2')],
    graph_breaks: [{ reason: 'print', line: 4 }]
  });
  const after = run({
    id: 'run1',
    variants: [
      { name: 'eager', timing: { median_ms: 4, p10_ms: 3.8, p90_ms: 4.4, n: 20 } },
      { name: 'inductor/default', timing: { median_ms: 1, p10_ms: 0.9, p90_ms: 1.1, n: 20 } },
      { name: 'inductor/max-autotune', timing: { median_ms: 0.8, p10_ms: 0.7, p90_ms: 0.9, n: 20 } }
    ],
    speedup: { value: 5, low: 4.5, high: 5.5, variant: 'inductor/max-autotune' },
    kernels: [kernel('triton_poi_fused_add_5'), kernel('triton_per_fused_softmax_6')]
  });
  const cmp = compareRuns(before, after);

  it('gives time deltas and ratios per variant, including one only the second run has', () => {
    expect(cmp.variants.map(v => v.name)).toEqual(['eager', 'inductor/default', 'inductor/max-autotune']);
    expect(cmp.variants[0]).toMatchObject({ deltaMs: 0, ratio: 1 });
    expect(cmp.variants[1]).toMatchObject({ beforeMs: 2, afterMs: 1, deltaMs: -1, ratio: 0.5 });
    expect(cmp.variants[2]).toMatchObject({ beforeMs: null, afterMs: 0.8, deltaMs: null, ratio: null });
  });

  it('gives the speedup and count deltas', () => {
    expect(cmp.speedup).toEqual({ before: 2, after: 5, delta: 3 });
    expect(cmp.counts.find(c => c.name === 'graph breaks')).toEqual({ name: 'graph breaks', before: 1, after: 0, delta: -1 });
    expect(cmp.counts.find(c => c.name === 'kernels')?.delta).toBe(-1);
  });

  it('matches kernels ignoring the numeric suffix, as a multiset', () => {
    expect(kernelKey({ name: 'triton_poi_fused_add_12' })).toBe('triton_poi_fused_add');
    expect(cmp.kernelsKept).toBe(1);
    expect(cmp.kernelsAdded).toEqual([{ name: 'triton_per_fused_softmax', count: 1 }]);
    expect(cmp.kernelsRemoved).toEqual([
      { name: 'cpp_fused_relu', count: 1 },
      { name: 'triton_poi_fused_add', count: 1 }
    ]);
  });

  it('has no speedup delta when a run has no speedup', () => {
    expect(compareRuns(before, run({ speedup: null })).speedup.delta).toBeNull();
  });
});
