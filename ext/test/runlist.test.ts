import { filterByNotebook, newestFirst, runIdsShownIn, runTitle, samePath } from '../src/runlist';
import { RUN_MIME_TYPE } from '../src/types';
import { summary } from './fixtures';

describe('run list', () => {
  const runs = [
    summary('b', '2026-01-01T10:00:00+00:00', { notebook: '/home/me/work/a.ipynb' }),
    summary('c', '2026-01-02T10:00:00+00:00', { notebook: 'work/b.ipynb' }),
    summary('a', '2026-01-01T10:00:00+00:00', { notebook: 'work/a.ipynb' }),
    summary('d', '2026-01-01T09:00:00+01:00', { notebook: '' })
  ];

  it('puts the newest first, comparing instants across time zones, ties by id', () => {
    expect(newestFirst(runs).map(r => r.id)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('does not reorder its input', () => {
    newestFirst(runs);
    expect(runs.map(r => r.id)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('filters to one notebook whether the kernel recorded an absolute or a relative path', () => {
    expect(filterByNotebook(runs, 'work/a.ipynb').map(r => r.id)).toEqual(['b', 'a']);
    expect(filterByNotebook(runs, null)).toHaveLength(4);
  });

  it('keeps the runs whose cards a renamed notebook shows', () => {
    expect(filterByNotebook(runs, 'work/renamed.ipynb').map(r => r.id)).toEqual([]);
    expect(filterByNotebook(runs, 'work/renamed.ipynb', new Set(['c', 'd'])).map(r => r.id)).toEqual([
      'c',
      'd'
    ]);
  });

  it("finds the run ids in a notebook's outputs, only from code cells and run cards", () => {
    const outputs = (...data: Record<string, unknown>[]) => ({
      length: data.length,
      get: (i: number) => ({ data: data[i] })
    });
    const cells = [
      { type: 'markdown' },
      {
        type: 'code',
        outputs: outputs({ 'text/plain': 'x' }, { [RUN_MIME_TYPE]: { run_id: 'r1', summary: {} } })
      },
      { type: 'code', outputs: outputs({ [RUN_MIME_TYPE]: { run_id: 42 } }) },
      { type: 'raw', outputs: outputs({ [RUN_MIME_TYPE]: { run_id: 'not-code' } }) },
      { type: 'code', outputs: outputs({ [RUN_MIME_TYPE]: { run_id: 'r2' } }) }
    ];
    expect([...runIdsShownIn(cells)]).toEqual(['r1', 'r2']);
  });

  it('does not match a notebook by a partial file name', () => {
    expect(samePath('/home/me/xa.ipynb', 'a.ipynb')).toBe(false);
    expect(samePath('/home/me/a.ipynb', 'a.ipynb')).toBe(true);
    expect(samePath('', 'a.ipynb')).toBe(false);
  });

  it('titles a run by label, then first line, then id', () => {
    expect(runTitle({ id: 'x', label: 'L', first_line: 'f' })).toBe('L');
    expect(runTitle({ id: 'x', label: '', first_line: 'f' })).toBe('f');
    expect(runTitle({ id: 'x', label: '', first_line: '' })).toBe('x');
  });
});
