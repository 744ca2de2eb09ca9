/**
 * What the Guards tab lists (issue 13 §5): per Dynamo graph, the digest's words for what its guards
 * check (kinds_text) and its guards grouped by kind and value (a module's parameters in one row) with
 * the cell line each value comes from and, for a value guard on data, its warning (digest/guards.py),
 * and each recompile in the user's words: the value, what changed, the fix.  Pure: the digest derives
 * every figure and sentence, this module picks them out.  They come from the REST API, which this
 * release's server derives from the stored run (digest/summary.py digest_of), so the generated types hold
 * and nothing is checked here; runs older than the guards lack these keys and yield no sections and no
 * recompiles.
 */

import { IGraphGuards, IRecompileRow, IRunDigest } from './types';

/** The guard sections in the digest's order (the run's graph order); none for older runs. */
export function guardSections(summary: Partial<IRunDigest> | null | undefined): IGraphGuards[] {
  return summary?.guards ?? [];
}

/** The recompiles in the digest's order; none for older runs. */
export function recompileItems(summary: Partial<IRunDigest> | null | undefined): IRecompileRow[] {
  return summary?.recompiles ?? [];
}

/** A cell line to reveal: a positive whole number, else null (a value on no line). */
export function cellLine(line: number | null): number | null {
  return line !== null && Number.isInteger(line) && line > 0 ? line : null;
}

/** A section's heading, as the Graphs tab names a graph: "g0 · inductor/default · compile 0/0". */
export function sectionTitle(section: IGraphGuards): string {
  return [section.graph_id, section.variant, section.compile_id ? `compile ${section.compile_id}` : '']
    .filter(Boolean)
    .join(' · ');
}
