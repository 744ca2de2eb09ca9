/**
 * The run's verdict as the digest decided it (digest/outcome.py, the summary's `outcome`): the badge's words and
 * tone, and the speedup beneath a verdict that overrides it, marked not meaningful.  The card, the run list, the
 * Overview and Compare read it here and decide nothing: "results differ" or "ran eagerly" leads, and the speedup
 * under it reads "1.53× slower — not meaningful: compiled results differ".
 *
 * A summary written before the verdict (digest < 22: a card saved in a notebook by an older release) has no
 * `outcome`; it shows as it did then: the speedup's badge, toned by its interval, or the run's state.
 */

import { IOutcome, IRunSummary } from './types';

export type VerdictTone = IOutcome['tone'];

type VerdictSource = Partial<Pick<IRunSummary, 'outcome' | 'speedup' | 'status' | 'list_status'>>;

/** The digest's verdict, or null for a summary older than it. */
export function verdictOf(summary: VerdictSource | null | undefined): IOutcome | null {
  const o = summary?.outcome;
  return o && typeof o === 'object' && typeof o.label === 'string' && typeof o.tone === 'string' ? o : null;
}

/**
 * The badge's tone: the digest's (`outcome.tone`: "wrong" for results that differ or a failure, "eager" where
 * compiled code did not run, else the speedup's "faster", "slower", "even"; "none").  An older summary's is read
 * off the flags the digest set on its speedup: "even" without an interval or where it includes 1×, else the side of
 * 1× the speedup is on.
 */
export function speedupTone(summary: VerdictSource | null | undefined): VerdictTone {
  const o = verdictOf(summary);
  if (o) {
    return o.tone;
  }
  const speedup = summary?.speedup;
  if (!speedup) {
    return 'none';
  }
  if (!speedup.has_interval || speedup.includes_one) {
    return 'even'; // nothing measured either way
  }
  return speedup.value >= 1 ? 'faster' : 'slower';
}

/** The badge's words: the verdict's label ("results differ", "ran eagerly", "1.25× faster"), as the digest words it. */
export function verdictBadge(summary: VerdictSource): string {
  const o = verdictOf(summary);
  if (o) {
    return o.label;
  }
  return summary.speedup ? summary.speedup.text : (summary.list_status ?? summary.status ?? '');
}

/**
 * The speedup beneath a verdict that overrides it: "1.53× slower — not meaningful: compiled results differ"; null
 * where the speedup is meaningful (it is then the verdict, or beside it) or there is none.
 */
export function meaninglessSpeedup(summary: VerdictSource | null | undefined): string | null {
  const o = verdictOf(summary);
  return o && summary?.speedup && !o.speedup_meaningful && o.speedup_text ? o.speedup_text : null;
}

/**
 * Why compiled results were not compared with eager's, as the digest words it ("correctness not compared: the cell
 * draws random numbers (aten.rand, …) …"), for the card, which otherwise says nothing of correctness: a card with a
 * verdict and no word of correctness reads as results that match.  Null where they were compared (results that
 * differ lead as the verdict) or the summary has no correctness.
 */
export function notComparedText(
  summary: Partial<Pick<IRunSummary, 'correctness'>> | null | undefined
): string | null {
  const c = summary?.correctness;
  if (!c || c.ok !== null || typeof c.text !== 'string' || !c.text) {
    return null;
  }
  return `correctness ${c.text}`;
}
