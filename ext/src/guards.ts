/**
 * What the Guards tab lists (issue 13 §5): per Dynamo graph, the digest's words for what its guards
 * check (kinds_text) and its guards grouped by kind and value (a module's parameters in one row) with
 * the cell line each value comes from and, for a value guard on data, its warning (digest/guards.py),
 * and each recompile in the user's words: the value, what changed, the fix.  Pure: the digest derives
 * every figure and sentence, this module picks them out of the summary and drops what is malformed.
 * Runs older than the guards lack these keys and yield no sections and no recompiles.
 */

import { IRunDigest } from './types';
import { count, isRecord, text } from './json';

/** One row of a graph's guards: a kind, the value it checks and the checks themselves. */
export interface IGuardRow {
  kind: string;
  source: string;
  /** the cell line the value comes from; null when it comes from none */
  line: number | null;
  count: number;
  codes: string[];
  /** "recompiles when the value changes (…): …" for a value guard on data; "" for any other row */
  warning: string;
}

/** One Dynamo graph's guards. */
export interface IGuardSection {
  graphId: string;
  variant: string;
  compileId: string;
  total: number;
  kindsText: string;
  rows: IGuardRow[];
}

/** One recompile: the variant, the digest's failed-guard sentence (may be ""), Dynamo's reason. */
export interface IRecompileItem {
  variant: string;
  /** the value, what changed and the fix in the user's words: "xb, what next(batches) returned at … */
  failedGuard: string;
  reason: string;
  duringTiming: boolean;
  line: number | null;
}

/** A cell line: a positive whole number, else null. */
function cellLine(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** The guard sections in the digest's order (the run's graph order); none for older runs. */
export function guardSections(summary: Partial<IRunDigest> | null | undefined): IGuardSection[] {
  return records(summary?.guards).map(g => ({
    graphId: text(g.graph_id),
    variant: text(g.variant),
    compileId: text(g.compile_id),
    total: count(g.total),
    kindsText: text(g.kinds_text),
    rows: records(g.groups).map(r => ({
      kind: text(r.kind),
      source: text(r.source),
      line: cellLine(r.line),
      count: count(r.count),
      codes: Array.isArray(r.codes) ? r.codes.filter((c): c is string => typeof c === 'string') : [],
      warning: text(r.warning)
    }))
  }));
}

/** The recompiles in the digest's order; none for older runs. */
export function recompileItems(summary: Partial<IRunDigest> | null | undefined): IRecompileItem[] {
  return records(summary?.recompiles).map(r => ({
    variant: text(r.variant),
    failedGuard: text(r.failed_guard),
    reason: text(r.reason),
    duringTiming: r.during_timing === true,
    line: cellLine(r.line)
  }));
}

/** A section's heading, as the Graphs tab names a graph: "g0 · inductor/default · compile 0/0". */
export function sectionTitle(section: IGuardSection): string {
  return [section.graphId, section.variant, section.compileId ? `compile ${section.compileId}` : '']
    .filter(Boolean)
    .join(' · ');
}
