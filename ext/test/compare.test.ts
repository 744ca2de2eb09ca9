import { contextRows, deltaArrow, deltaClass, kernelCountText } from '../src/compare';

describe('deltaClass', () => {
  it('marks the change from B: better when B is, worse when A is, plain otherwise', () => {
    expect(deltaClass({ better: 'b', within_noise: false })).toBe('cp-mod-better');
    expect(deltaClass({ better: 'a', within_noise: false })).toBe('cp-mod-worse');
    expect(deltaClass({ better: '', within_noise: false })).toBe('');
  });
  it('shows a change within noise neutral, whatever its direction', () => {
    expect(deltaClass({ better: '', within_noise: true })).toBe('cp-mod-noise');
    // a digest that set both would still not be coloured
    expect(deltaClass({ better: 'b', within_noise: true })).toBe('cp-mod-noise');
  });
});

describe('deltaArrow', () => {
  it('points the way B moved for a change the digest calls one', () => {
    expect(deltaArrow({ better: 'b', within_noise: false, change: -0.55 })).toBe('▼');
    expect(deltaArrow({ better: 'b', within_noise: false, change: 1.48 })).toBe('▲');
    expect(deltaArrow({ better: 'a', within_noise: false, change: 0.2 })).toBe('▲');
  });
  it('gives no arrow within noise, without a direction or a change', () => {
    expect(deltaArrow({ better: '', within_noise: true, change: 0.02 })).toBe('');
    expect(deltaArrow({ better: '', within_noise: false, change: 0.3 })).toBe('');
    expect(deltaArrow({ better: 'b', within_noise: false, change: null })).toBe('');
  });
});

describe('kernelCountText', () => {
  it('names a kernel, with its count only when more than one', () => {
    expect(kernelCountText({ name: 'triton_poi_fused_add', count: 1 })).toBe('triton_poi_fused_add');
    expect(kernelCountText({ name: 'cpp_fused_relu', count: 3 })).toBe('cpp_fused_relu ×3');
  });
});

describe('contextRows', () => {
  const ref = (id: string, device: string) => ({
    id,
    label: '',
    created_at: '',
    device,
    torch_version: '2.13.0'
  });

  it("lays out the digest's context as it sent it, the rows that differ first", () => {
    const context = [
      { label: 'threads', a: '8 intra-op, 8 inter-op', b: '1 intra-op, 8 inter-op', differs: true },
      { label: 'profile options', a: 'warm-up 2', b: 'warm-up 2, --quick', differs: true },
      { label: 'device', a: 'x86_64', b: 'x86_64', differs: false }
    ];
    expect(contextRows({ a: ref('a', 'x86_64'), b: ref('b', 'x86_64'), context })).toEqual(context);
  });

  it('shows device and torch, saying neither differs nor agrees, where a comparison has no context', () => {
    expect(contextRows({ a: ref('a', 'x86_64'), b: ref('b', 'NVIDIA H200') })).toEqual([
      { label: 'device', a: 'x86_64', b: 'NVIDIA H200', differs: null },
      { label: 'torch', a: '2.13.0', b: '2.13.0', differs: null }
    ]);
  });
});
