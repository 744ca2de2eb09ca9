/** Small runs and summaries built field by field for the logic tests. */

import { IKernel, IProfileRun, IRunSummary } from '../src/types';

export function kernel(name: string, extra: Partial<IKernel> = {}): IKernel {
  return { name, language: 'triton', source: `# ${name}`, graph_id: 'g0', aten_ops: [], lines: [], ...extra };
}

export function run(extra: Partial<IProfileRun> = {}): IProfileRun {
  return {
    id: 'run0',
    created_at: '2026-01-01T00:00:00+00:00',
    label: '',
    cell_source: 'import torch\nx = torch.randn(8)\ny = x.relu() + 1\nprint(y)\n',
    device: { type: 'cpu', name: 'x86_64' },
    torch_version: '2.13.0',
    variants: [
      { name: 'eager', timing: { median_ms: 4, p10_ms: 3.8, p90_ms: 4.4, n: 20 } },
      { name: 'inductor/default', timing: { median_ms: 2, p10_ms: 1.9, p90_ms: 2.2, n: 20 }, compile_s: 1.5 }
    ],
    speedup: { value: 2, low: 1.8, high: 2.2, variant: 'inductor/default' },
    graphs: [{ id: 'g0', kind: 'dynamo', code: 'def forward(): pass' }],
    graph_breaks: [],
    recompiles: [],
    kernels: [],
    compile_phases: {},
    cache: {
      fx_graph_hits: 0,
      fx_graph_misses: 1,
      aot_autograd_hits: 0,
      aot_autograd_misses: 1,
      state: 'cold'
    },
    correctness: null,
    errors: [],
    status: 'ok',
    notebook: '',
    ...extra
  };
}

export function summary(id: string, created_at: string, extra: Partial<IRunSummary> = {}): IRunSummary {
  return {
    id,
    label: '',
    created_at,
    status: 'ok',
    notebook: '',
    device: { type: 'cpu', name: 'x86_64' },
    first_line: 'x = f(y)',
    headline: '',
    variants: [],
    speedup: null,
    compile_s: null,
    cache_state: 'none',
    graph_count: 0,
    graph_break_count: 0,
    recompile_count: 0,
    kernel_count: 0,
    warnings: [],
    ...extra
  };
}
