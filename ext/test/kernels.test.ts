import {
  filterKernels,
  highlightLanguage,
  kernelRate,
  kernelTimeText,
  nextSort,
  pageOf,
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

  it('words a rate and its share of the peak, "—" when not measured', () => {
    expect(kernelRate(rated[0], 'bandwidth')).toEqual({ rate: '120 GB/s', share: '4%' });
    expect(kernelRate(rated[0], 'compute')).toEqual({ rate: '2.5 TFLOP/s', share: '0.3%' });
    expect(kernelRate(rated[2], 'bandwidth')).toEqual({ rate: '2.81 TB/s', share: '84%' });
    expect(kernelRate(rated[2], 'compute')).toEqual({ rate: '—', share: '—' });
    expect(kernelRate(rated[3], 'bandwidth')).toEqual({ rate: '—', share: '—' });
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
  const busy = kernel('cpp_fused_add_mul_0', {
    language: 'cpp',
    variant: 'inductor/default',
    device_time_ms: 1.17,
    share: 0.966,
    achieved_gbps: 0.0327
  });

  it('names the withheld variants with why, and none before digest 11', () => {
    expect([...withheldPasses(judged)]).toEqual([['inductor/default', why]]);
    expect(withheldPasses(summary('r', '')).size).toBe(0);
  });

  it("shows a withheld kernel's share of the pass, never its time, and no rate", () => {
    const withheld = withheldPasses(judged);
    expect(kernelTimeText(busy, withheld)).toBe('97% of pass');
    expect(kernelRate(busy, 'bandwidth', withheld)).toEqual({ rate: '—', share: '—' });
    expect(kernelTimeText(busy, new Map())).toBe('1.17 ms');
    expect(kernelTimeText({ ...busy, device_time_ms: null }, withheld)).toBe('—');
    const trusted = kernel('cpp_fused_relu_0', { variant: 'eager', device_time_ms: 0.5, share: 0.4 });
    expect(kernelTimeText(trusted, withheld)).toBe('500 µs');
  });
});
