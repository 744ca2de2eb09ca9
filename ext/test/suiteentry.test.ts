import { suiteEntry } from '../src/suiteentry';
import { IRunDigest } from '../src/types';

const labelled = (label: string) => ({ summary: { label } as IRunDigest });

describe('suiteEntry', () => {
  it('reads the entry and the suite the run records', () => {
    const run = {
      suite_entry: { suite_id: '89d8b6e2ef2c', entry: 'gpt2 (training, bfloat16)' },
      ...labelled('mine')
    };
    expect(suiteEntry(run)).toEqual({ name: 'gpt2 (training, bfloat16)', suite: '89d8b6e2ef2c' });
  });

  it("reads a run stored before that from the label the suite's runner wrote", () => {
    expect(suiteEntry(labelled('gpt2 (training, bfloat16) · suite 89d8b6e2ef2c'))).toEqual({
      name: 'gpt2 (training, bfloat16)',
      suite: '89d8b6e2ef2c'
    });
  });

  it('is null for any other run, one whose label only mentions a suite included', () => {
    expect(suiteEntry(labelled('relu matmul'))).toBeNull();
    expect(suiteEntry(labelled(''))).toBeNull();
    expect(suiteEntry({})).toBeNull();
    expect(suiteEntry({ suite_entry: null, ...labelled('mlp · suite 89d8b6e2ef2') })).toBeNull(); // 12 hex digits
    expect(suiteEntry(labelled('mlp · suite 89d8b6e2ef2c and more'))).toBeNull();
  });
});
