/**
 * The suite entry a run is, read from the label the suite's runner gives its entries' runs ("NAME · suite ID",
 * kernel_side/compile_profile/suites/runner.py): such a run has no notebook cell to re-run.
 */
export interface ISuiteEntry {
  name: string;
  suite: string;
}

export function suiteEntry(label: string): ISuiteEntry | null {
  const m = /^(.+) · suite ([0-9a-f]{12})$/s.exec(label);
  return m ? { name: m[1], suite: m[2] } : null;
}
