/**
 * The `%%compile_profile` cell a run was profiled by, for the detail's Copy and Re-run: the digest's line
 * (RunDigest.magic_line, digest/magic_line.py: the line as typed for a run of the magic, else built from the options
 * the run records, round-tripped through the magic's parser by tests/test_magic_line.py), then the run's code.
 */

import { bodyOf } from './cellmatch';
import { IProfileRun } from './types';

const MAGIC = '%%compile_profile';

/** Whether the run's recorded cell starts with its `%%compile_profile` line. */
export function hasMagicLine(run: Pick<IProfileRun, 'cell_source'>): boolean {
  return bodyOf(run.cell_source) !== run.cell_source;
}

/** The whole cell: the digest's `%%compile_profile` line, then the code the run profiled. */
export function profiledCell(run: Pick<IProfileRun, 'cell_source' | 'summary'>): string {
  return `${run.summary?.magic_line ?? MAGIC}\n${bodyOf(run.cell_source)}`;
}

/**
 * `cell` with `option` added to its `%%compile_profile` line (the card's and the detail's Bisect: the cell runs
 * again with `--bisect`); unchanged where the line has it already or the cell has no such line.
 */
export function withOption(cell: string, option: string): string {
  const end = cell.indexOf('\n');
  const first = end < 0 ? cell : cell.slice(0, end);
  if (!first.trimStart().startsWith(MAGIC) || first.split(/\s+/).includes(option)) {
    return cell;
  }
  return `${first.replace(/\s+$/, '')} ${option}${end < 0 ? '' : cell.slice(end)}`;
}
