/**
 * The `%%compile_profile` cell a run was profiled by, for the detail's Copy and Re-run.
 *
 * A run from the magic keeps its cell as the kernel saw it, its first line the `%%compile_profile`
 * line with the options as typed (magic.py): that cell is the answer.  A run from the Python API
 * (`compile_profile.profile`) or the line magic keeps only the code; its line is built from what the
 * run records of its options: each compiled variant's backend, mode, dynamic, fullgraph and Inductor
 * options (profile_run/run.py Variant), its label and the names it kept.  Warm-up, repeat and budget are
 * not recorded in a run, so a built line leaves them at the magic's defaults.
 */

import { bodyOf } from './cellmatch';
import { IProfileRun } from './types';

const MAGIC = '%%compile_profile';

/** A value as the magic's line reads it back (magic.py `_unquote`: one pair of outer quotes). */
export function quoteArg(value: string): string {
  if (/^[A-Za-z0-9_.,=:/+@%-]+$/.test(value)) {
    return value;
  }
  // IPython splits the line like a shell but keeps quotes and backslashes; one kind of quote inside
  // is kept by the other around it.
  return value.includes("'") ? `"${value}"` : `'${value}'`;
}

/** `--options KEY=VALUE` as magic.py `_key_value` reads it back: booleans as true/false. */
function optionValue(value: unknown): string {
  if (typeof value === 'boolean') {
    return value ? 'true' : 'false';
  }
  if (typeof value === 'number' || typeof value === 'string') {
    return String(value);
  }
  return JSON.stringify(value);
}

/** Whether the run's recorded cell starts with its `%%compile_profile` line. */
export function hasMagicLine(run: Pick<IProfileRun, 'cell_source'>): boolean {
  return bodyOf(run.cell_source) !== run.cell_source;
}

/** The `%%compile_profile` line that profiles the cell with the options the run used. */
export function magicLine(
  run: Pick<IProfileRun, 'cell_source' | 'variants' | 'label'> & {
    kept_names?: string[];
    temporaries?: string[];
  }
): string {
  if (hasMagicLine(run)) {
    return run.cell_source.split('\n')[0].trim();
  }
  const compiled = run.variants.filter(v => v.name !== 'eager');
  const first = compiled[0];
  const args: string[] = [];
  const modes = [...new Set(compiled.map(v => v.mode ?? 'default'))];
  if (modes.length && !(modes.length === 1 && modes[0] === 'default')) {
    modes.forEach(mode => args.push('--mode', quoteArg(mode)));
  }
  if (first?.backend && first.backend !== 'inductor') {
    args.push('--backend', quoteArg(first.backend));
  }
  if (first?.dynamic === true) {
    args.push('--dynamic');
  } else if (first?.dynamic === false) {
    args.push('--static');
  }
  if (first?.fullgraph) {
    args.push('--fullgraph');
  }
  for (const [key, value] of Object.entries(first?.options ?? {})) {
    args.push('--options', quoteArg(`${key}=${optionValue(value)}`));
  }
  if (run.temporaries?.length) {
    // --keep was given: the names kept are the ones it named
    args.push('--keep', quoteArg((run.kept_names ?? []).join(',')));
  }
  if (run.label) {
    args.push('--label', quoteArg(run.label));
  }
  return [MAGIC, ...args].join(' ');
}

/** The whole cell: the `%%compile_profile` line, then the code the run profiled. */
export function profiledCell(
  run: Pick<IProfileRun, 'cell_source' | 'variants' | 'label'> & {
    kept_names?: string[];
    temporaries?: string[];
  }
): string {
  return `${magicLine(run)}\n${bodyOf(run.cell_source)}`;
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
