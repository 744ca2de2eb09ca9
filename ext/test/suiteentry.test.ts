import { suiteEntry } from '../src/suiteentry';

describe('suiteEntry', () => {
  it("reads the entry and the suite from the label the suite's runner writes", () => {
    expect(suiteEntry('gpt2 (training, bfloat16) · suite 89d8b6e2ef2c')).toEqual({
      name: 'gpt2 (training, bfloat16)',
      suite: '89d8b6e2ef2c'
    });
  });

  it('is null for any other label, one that only mentions a suite included', () => {
    expect(suiteEntry('relu matmul')).toBeNull();
    expect(suiteEntry('')).toBeNull();
    expect(suiteEntry('mlp · suite 89d8b6e2ef2')).toBeNull(); // an id is 12 hex digits
    expect(suiteEntry('mlp · suite 89d8b6e2ef2c and more')).toBeNull();
  });
});
