import {
  filterByNotebook,
  newestFirst,
  readableRuns,
  runBadge,
  runFlag,
  runIdsShownIn,
  runTitle,
  samePath,
  unreadableReason
} from '../src/runlist';
import { RUN_MIME_TYPE } from '../src/types';
import { summary } from './fixtures';

describe('run list', () => {
  const runs = [
    summary('b', '2026-01-01T10:00:00+00:00', { notebook: '/home/me/work/a.ipynb' }),
    summary('c', '2026-01-02T10:00:00+00:00', { notebook: 'work/b.ipynb' }),
    summary('a', '2026-01-01T10:00:00+00:00', { notebook: 'work/a.ipynb' }),
    summary('d', '2026-01-01T09:00:00+01:00', { notebook: '' })
  ];

  it('tells an unreadable run by the reason the store lists, and leaves it out of what can be compared', () => {
    const bad = summary('bad1', '2026-01-03T10:00:00+00:00', {
      status: 'unreadable',
      unreadable: 'cell_runs: expected an integer, got a string'
    });
    expect(unreadableReason(bad)).toBe('cell_runs: expected an integer, got a string');
    expect(runBadge({ ...bad, list_status: 'unreadable' })).toBe('unreadable');
    expect(runFlag({ ...bad, list_status: 'unreadable' })).toBeNull(); // no speedup beside it to flag
    expect(unreadableReason(runs[0])).toBeNull(); // a summary of an older digest has no such key
    expect(unreadableReason({ unreadable: null })).toBeNull();
    expect(readableRuns([bad, ...runs]).map(r => r.id)).toEqual(['b', 'c', 'a', 'd']);
  });

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

  const speedup = {
    value: 1.5,
    low: 1.4,
    high: 1.6,
    variant: 'inductor/default',
    text: '1.50×',
    phrase: '1.50× faster',
    has_interval: true,
    includes_one: false
  };

  it('flags a run whose compiled results differ beside its speedup, as the digest words it', () => {
    const differ = summary('m', '2026-01-01T10:00:00+00:00', { speedup, list_status: 'results differ' });
    expect(runBadge(differ)).toBe('1.50×');
    expect(runFlag(differ)).toBe('results differ');
    expect(runFlag({ ...differ, list_status: 'ok' })).toBeNull();
  });

  it('shows the state in the badge of a run without a speedup, and flags nothing twice', () => {
    const failed = summary('f', '2026-01-01T10:00:00+00:00', {
      status: 'error',
      list_status: 'error, results differ'
    });
    expect(runBadge(failed)).toBe('error, results differ');
    expect(runFlag(failed)).toBeNull();
  });

  it('reads the status of summaries written before list_status', () => {
    const old = summary('o', '2026-01-01T10:00:00+00:00', { speedup, status: 'interrupted' });
    expect(runFlag(old)).toBe('interrupted');
    expect(runBadge({ ...old, speedup: null })).toBe('interrupted');
  });
});
