import { jobRowKey, listKeyAction, neighbourKey, rowKeys, runRowKey, tabStopKey } from '../src/listnav';
import { groupJobs } from '../src/runlist';
import { IRunSummary } from '../src/types';
import { summary } from './fixtures';

function run(id: string, job?: { job_id: string; rank: number }): IRunSummary {
  return summary(
    id,
    '2026-01-01T00:00:00Z',
    job ? { distributed: { ...job, world_size: 2, backend: 'gloo' } } : {}
  );
}

describe('the run list by keyboard (a WAI-ARIA listbox)', () => {
  it('moves down and up a row at a time and stops at either end rather than wrapping', () => {
    expect(listKeyAction('ArrowDown', 0, 3)).toEqual({ kind: 'move', index: 1 });
    expect(listKeyAction('ArrowDown', 2, 3)).toEqual({ kind: 'move', index: 2 });
    expect(listKeyAction('ArrowUp', 2, 3)).toEqual({ kind: 'move', index: 1 });
    expect(listKeyAction('ArrowUp', 0, 3)).toEqual({ kind: 'move', index: 0 });
  });

  it('goes to the first and the last row with Home and End', () => {
    expect(listKeyAction('Home', 2, 5)).toEqual({ kind: 'move', index: 0 });
    expect(listKeyAction('End', 0, 5)).toEqual({ kind: 'move', index: 4 });
  });

  it('enters from nowhere at the first row going down and the last going up', () => {
    expect(listKeyAction('ArrowDown', -1, 3)).toEqual({ kind: 'move', index: 0 });
    expect(listKeyAction('ArrowUp', -1, 3)).toEqual({ kind: 'move', index: 2 });
  });

  it('opens the row on Enter and Space, asks to delete it on Delete, and leaves other keys alone', () => {
    expect(listKeyAction('Enter', 1, 3)).toEqual({ kind: 'open' });
    expect(listKeyAction(' ', 1, 3)).toEqual({ kind: 'open' });
    expect(listKeyAction('Delete', 1, 3)).toEqual({ kind: 'delete' });
    expect(listKeyAction('Enter', -1, 3)).toBeNull();
    expect(listKeyAction('Tab', 1, 3)).toBeNull();
    expect(listKeyAction('ArrowRight', 1, 3)).toBeNull();
    expect(listKeyAction('ArrowDown', 0, 0)).toBeNull();
  });

  it("lists a job's head before its ranks, in the order the list shows them", () => {
    const runs = [
      run('a'),
      run('r1', { job_id: 'j', rank: 1 }),
      run('b'),
      run('r0', { job_id: 'j', rank: 0 })
    ];
    expect(rowKeys(groupJobs(runs))).toEqual([
      runRowKey('a'),
      jobRowKey('j'),
      runRowKey('r0'),
      runRowKey('r1'),
      runRowKey('b')
    ]);
  });

  it('keeps one Tab stop: the row last moved to, else the current run, else the first', () => {
    const keys = ['run:a', 'run:b', 'run:c'];
    expect(tabStopKey(keys, 'run:c', 'run:b')).toBe('run:c');
    expect(tabStopKey(keys, null, 'run:b')).toBe('run:b');
    expect(tabStopKey(keys, 'run:gone', 'run:also-gone')).toBe('run:a');
    expect(tabStopKey([], null, null)).toBeNull();
  });

  it('moves to the next row once a row is deleted, the one before at the end', () => {
    const keys = ['run:a', 'run:b', 'run:c'];
    expect(neighbourKey(keys, 'run:b')).toBe('run:c');
    expect(neighbourKey(keys, 'run:c')).toBe('run:b');
    expect(neighbourKey(['run:a'], 'run:a')).toBeNull();
    expect(neighbourKey(keys, 'run:x')).toBeNull();
  });
});
