import {
  filterKernels,
  highlightLanguage,
  kernelCells,
  kernelOrigins,
  nextSort,
  pageOf,
  rateCell,
  sortKernels,
  withheldPasses
} from '../src/kernels';
import { kernel, summary } from './fixtures';

const kernels = [
  kernel('triton_poi_fused_add_2', { device_time_ms: 0.5, lines: [4], aten_ops: ['aten.add'] }),
  kernel('cpp_fused_relu_10', { language: 'cpp', device_time_ms: null, lines: [2, 3] }),
  kernel('triton_per_fused_softmax_1', { device_time_ms: 1.5, lines: [6], aten_ops: ['aten._softmax'] }),
  kernel('extern_kernels.mm', { language: 'extern', device_time_ms: 0.1, lines: [] })
];

describe('sortKernels', () => {
  it('sorts measured times descending, unmeasured last', () => {
    const names = sortKernels(kernels, { key: 'device_time_ms', direction: 'desc' }).map(k => k.name);
    expect(names).toEqual([
      'triton_per_fused_softmax_1',
      'triton_poi_fused_add_2',
      'extern_kernels.mm',
      'cpp_fused_relu_10'
    ]);
  });

  it('keeps unmeasured last when ascending too', () => {
    const names = sortKernels(kernels, { key: 'device_time_ms', direction: 'asc' }).map(k => k.name);
    expect(names[names.length - 1]).toBe('cpp_fused_relu_10');
    expect(names[0]).toBe('extern_kernels.mm');
  });

  it('sorts names with numbers in natural order', () => {
    const ks = [kernel('k_10'), kernel('k_2'), kernel('k_1')];
    expect(sortKernels(ks, { key: 'name', direction: 'asc' }).map(k => k.name)).toEqual([
      'k_1',
      'k_2',
      'k_10'
    ]);
  });

  it('sorts by first cell line', () => {
    const names = sortKernels(kernels, { key: 'lines', direction: 'asc' }).map(k => k.name);
    expect(names).toEqual([
      'cpp_fused_relu_10',
      'triton_poi_fused_add_2',
      'triton_per_fused_softmax_1',
      'extern_kernels.mm'
    ]);
  });

  it('flips direction on the same column and starts times descending', () => {
    expect(nextSort({ key: 'name', direction: 'asc' }, 'name')).toEqual({ key: 'name', direction: 'desc' });
    expect(nextSort({ key: 'name', direction: 'asc' }, 'device_time_ms')).toEqual({
      key: 'device_time_ms',
      direction: 'desc'
    });
    expect(nextSort({ key: 'device_time_ms', direction: 'desc' }, 'lines')).toEqual({
      key: 'lines',
      direction: 'asc'
    });
  });
});

describe('roofline columns', () => {
  const rated = [
    kernel('k_slow', {
      achieved_gbps: 120.4,
      bandwidth_share: 0.036,
      achieved_tflops: 2.5,
      compute_share: 0.0033
    }),
    kernel('k_none', { achieved_gbps: null, bandwidth_share: null }),
    kernel('k_fast', {
      achieved_gbps: 2810.6,
      bandwidth_share: 0.84,
      achieved_tflops: null,
      compute_share: null
    }),
    kernel('k_old') // a run older than the roofline
  ];

  it('sorts by achieved GB/s and TFLOP/s, unmeasured last in either direction', () => {
    const by = (key: 'achieved_gbps' | 'achieved_tflops', direction: 'asc' | 'desc') =>
      sortKernels(rated, { key, direction }).map(k => k.name);
    expect(by('achieved_gbps', 'desc')).toEqual(['k_fast', 'k_slow', 'k_none', 'k_old']);
    expect(by('achieved_gbps', 'asc')).toEqual(['k_slow', 'k_fast', 'k_none', 'k_old']);
    expect(by('achieved_tflops', 'desc')).toEqual(['k_slow', 'k_fast', 'k_none', 'k_old']);
  });

  it('starts the rate columns descending', () => {
    expect(nextSort({ key: 'name', direction: 'asc' }, 'achieved_gbps')).toEqual({
      key: 'achieved_gbps',
      direction: 'desc'
    });
    expect(nextSort({ key: 'achieved_gbps', direction: 'desc' }, 'achieved_tflops')).toEqual({
      key: 'achieved_tflops',
      direction: 'desc'
    });
    expect(nextSort({ key: 'achieved_tflops', direction: 'desc' }, 'achieved_tflops')).toEqual({
      key: 'achieved_tflops',
      direction: 'asc'
    });
  });

  it("shows each kernel's rates and shares as the digest words them, found again after sorting", () => {
    // RunDigest.kernel_cells: one per kernel in the run's order (tests/test_kernel_times.py holds the words to
    // the figures); words no formatting would give, so the cells can only have come from the digest
    const worded = rated.map((k, i) => ({
      time: `T${i}`,
      bandwidth: `B${i}`,
      bandwidth_share: `BS${i}`,
      compute: `C${i}`,
      compute_share: `CS${i}`
    }));
    const cells = kernelCells(rated, worded);
    const sorted = sortKernels(rated, { key: 'achieved_gbps', direction: 'desc' });
    expect(sorted.map(k => cells.get(k)?.time)).toEqual(['T2', 'T0', 'T1', 'T3']);
    expect(rateCell(cells.get(rated[0]), 'bandwidth')).toEqual({ rate: 'B0', share: 'BS0' });
    expect(rateCell(cells.get(rated[2]), 'compute')).toEqual({ rate: 'C2', share: 'CS2' });
  });

  it('shows a dash for every cell of a kernel the digest sent no words for', () => {
    const cells = kernelCells(rated, undefined);
    expect(cells.get(rated[0])?.time).toBe('—');
    expect(rateCell(cells.get(rated[0]), 'bandwidth')).toEqual({ rate: '—', share: '—' });
    expect(rateCell(undefined, 'compute')).toEqual({ rate: '—', share: '—' });
  });
});

describe('paging 1,000 kernels', () => {
  const many = Array.from({ length: 1000 }, (_, i) => kernel(`k_${i}`));

  it('renders one page at a time', () => {
    const page = pageOf(many, 3, 50);
    expect(page.items).toHaveLength(50);
    expect(page.items[0].name).toBe('k_150');
    expect(page.pageCount).toBe(20);
    expect(page.total).toBe(1000);
  });

  it('clamps a page past the end (after filtering shrank the list)', () => {
    const page = pageOf(many.slice(0, 60), 5, 50);
    expect(page.page).toBe(1);
    expect(page.items).toHaveLength(10);
    expect(pageOf([], 2, 50)).toEqual({ items: [], page: 0, pageCount: 1, total: 0 });
  });
});

describe('filterKernels and languages', () => {
  it('matches names and ATen ops case-insensitively', () => {
    expect(filterKernels(kernels, 'SOFTMAX').map(k => k.name)).toEqual(['triton_per_fused_softmax_1']);
    expect(filterKernels(kernels, 'aten.add').map(k => k.name)).toEqual(['triton_poi_fused_add_2']);
    expect(filterKernels(kernels, '  ')).toHaveLength(4);
  });

  it('highlights C++ kernels as C++ and Triton as Python', () => {
    expect(highlightLanguage('cpp')).toBe('C++');
    expect(highlightLanguage('triton')).toBe('Python');
  });
});

describe('a withheld profiler pass (digest kernel_times)', () => {
  const why =
    "inductor/default's profiler pass is withheld: its kernels read 7.56× the timed call, beyond the timer's noise (1.30×)";
  const judged = summary('r', '', {
    kernel_times: {
      eager: {
        variant: 'eager',
        trusted: true,
        kernels_ms: 1.1,
        call_ms: 1.2,
        tolerance_ms: 0.36,
        preempted: false,
        text: '',
        why: ''
      },
      'inductor/default': {
        variant: 'inductor/default',
        trusted: false,
        kernels_ms: 19.8,
        call_ms: 2.62,
        tolerance_ms: 0.79,
        preempted: false,
        text: why,
        why: "inductor/default's kernels read 7.56× its timed call"
      }
    }
  });
  it('names the withheld variants with why, and none before digest 11', () => {
    expect([...withheldPasses(judged)]).toEqual([['inductor/default', why]]);
    expect(withheldPasses(summary('r', '')).size).toBe(0);
  });
});

describe('kernels of one name (kernelOrigins)', () => {
  const graphs = [
    { id: 'd/16/0/aot_inference', kind: 'aot_inference' as const, code: '', compile_id: '16/0' },
    { id: 'd/16/1/aot_inference', kind: 'aot_inference' as const, code: '', compile_id: '16/1' },
    { id: 'd/3/0/aot_forward', kind: 'aot_forward' as const, code: '', compile_id: '3/0' },
    { id: 'd/3/0/aot_backward', kind: 'aot_backward' as const, code: '', compile_id: '3/0' }
  ];
  it('names the compile where a compile and its recompile each wrote a kernel of the name', () => {
    // graph-breaks: cpp_fused_gt_max_0 ×2, from compiles 16/0 and 16/1, read alike in the table
    const first = kernel('cpp_fused_gt_max_0', {
      variant: 'inductor/default',
      graph_id: 'd/16/0/aot_inference'
    });
    const again = kernel('cpp_fused_gt_max_0', {
      variant: 'inductor/default',
      graph_id: 'd/16/1/aot_inference'
    });
    const own = kernel('cpp_fused_sum_0', { variant: 'inductor/default', graph_id: 'd/16/0/aot_inference' });
    const origins = kernelOrigins([first, own, again], graphs);
    expect(origins.get(first)).toEqual({ label: 'compile 16/0', title: 'compile 16/0' });
    expect(origins.get(again)).toEqual({ label: 'compile 16/1', title: 'compile 16/1' });
    expect(origins.has(own)).toBe(false); // a name of its own needs nothing beside it
  });

  it('names the variant by what its name does not share, whole on hover', () => {
    const a = kernel('extern_kernels.mm', { variant: 'inductor/default', graph_id: 'x' });
    const b = kernel('extern_kernels.mm', { variant: 'inductor/max-autotune', graph_id: 'y' });
    const c = kernel('triton_0', { variant: 'aot_eager', graph_id: 'x' });
    const d = kernel('triton_0', { variant: 'inductor/default', graph_id: 'x' });
    const origins = kernelOrigins([a, b, c, d], graphs);
    expect([origins.get(a), origins.get(b)]).toEqual([
      { label: 'default', title: 'inductor/default' },
      { label: 'max-autotune', title: 'inductor/max-autotune' }
    ]);
    expect([origins.get(c)!.label, origins.get(d)!.label]).toEqual(['aot_eager', 'inductor/default']);
  });

  it('names the graph where only that differs, and numbers what still reads alike', () => {
    const fwd = kernel('triton_poi_fused_0', { graph_id: 'd/3/0/aot_forward' });
    const bwd = kernel('triton_poi_fused_0', { graph_id: 'd/3/0/aot_backward' });
    const twin = kernel('triton_poi_fused_0', { graph_id: 'd/3/0/aot_backward' });
    const origins = kernelOrigins([fwd, bwd, twin], graphs);
    expect([fwd, bwd, twin].map(k => origins.get(k)!.label)).toEqual([
      'forward',
      'backward · #1',
      'backward · #2'
    ]);
  });
});
