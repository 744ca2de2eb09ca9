import { deltaClass, kernelCountText } from '../src/compare';

describe('deltaClass', () => {
  it('marks the change from B: better when B is, worse when A is, plain otherwise', () => {
    expect(deltaClass('b')).toBe('cp-mod-better');
    expect(deltaClass('a')).toBe('cp-mod-worse');
    expect(deltaClass('')).toBe('');
  });
});

describe('kernelCountText', () => {
  it('names a kernel, with its count only when more than one', () => {
    expect(kernelCountText({ name: 'triton_poi_fused_add', count: 1 })).toBe('triton_poi_fused_add');
    expect(kernelCountText({ name: 'cpp_fused_relu', count: 3 })).toBe('cpp_fused_relu ×3');
  });
});
