/**
 * The compile timeline's rows as the Compile tab lists them (digest/timeline.py derives and words them; the
 * report lists the same three phases).  Pure.
 */

import { ICompileTimelineRow } from './types';

/** A compile's three longest phases inside it ("whole compile" spans hold them all), longest first. */
export function largestPhases(row: ICompileTimelineRow): string {
  return row.phases
    .filter(p => p.family !== 'whole compile')
    .sort((a, b) => b.duration_s - a.duration_s)
    .slice(0, 3)
    .map(p => `${p.name} ${p.time}`)
    .join(', ');
}
