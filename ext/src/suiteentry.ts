import { IProfileRun } from './types';

/**
 * The suite entry a run is: a run a suite's child process stored carries it (`suite_entry`, recorded by
 * kernel_side/compile_profile/suites/child.py); such a run has no notebook cell to re-run.  A run stored before
 * that fact was recorded (2026-12-06) is read from the label the suite's runner gave it ("NAME · suite ID").
 */
export interface ISuiteEntry {
  name: string;
  suite: string;
}

export function suiteEntry(run: Pick<IProfileRun, 'suite_entry' | 'summary'>): ISuiteEntry | null {
  if (run.suite_entry) {
    return { name: run.suite_entry.entry, suite: run.suite_entry.suite_id };
  }
  const m = /^(.+) · suite ([0-9a-f]{12})$/s.exec(run.summary?.label ?? '');
  return m ? { name: m[1], suite: m[2] } : null;
}
