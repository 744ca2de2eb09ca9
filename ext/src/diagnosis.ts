/**
 * Laying out the digest's diagnosis (digest/diagnosis.py: what costs the compiled cell time, largest
 * first, each cause with its cost and what to do) and its --sweep recommendation (the torch.compile
 * call to copy).  The card shows the first causes and how many more the detail lists; the detail's
 * Overview shows them all.  Nothing here words a cause or ranks one: the digest did both.
 */

import { IRecommendation, IRunSummary } from './types';

/** How many causes the card shows (the digest's CARD_CAUSES). */
export const CARD_CAUSES = 3;

export interface ICardDiagnosis {
  heading: string;
  shown: NonNullable<IRunSummary['diagnosis']>;
  /** how many causes the card leaves to the detail */
  more: number;
}

/**
 * The card's part of a summary's diagnosis, or null where the summary has none (an output saved by an
 * older release, a run with no compiled timing).
 */
export function cardDiagnosis(summary: IRunSummary, limit = CARD_CAUSES): ICardDiagnosis | null {
  const causes = Array.isArray(summary.diagnosis) ? summary.diagnosis : [];
  if (!causes.length) {
    return null;
  }
  return {
    heading: summary.diagnosis_heading ?? '',
    shown: causes.slice(0, limit),
    more: Math.max(0, causes.length - limit)
  };
}

/**
 * The text of the button beside a cause on a line, which shows that line in the notebook.  The cause's
 * title already names the line in the digest's words ("line 5: print(y) runs eagerly …", "1 recompile: x
 * (cell line 2) changed …"; a traced script's "train.py line 2"), so the button says what it does, not the
 * line again: it once read "cell line 2" beside a title that said "x (cell line 2)".
 */
export const SHOW_LINE_TEXT = 'show in notebook';

/** "… 2 more in the detail" under the card's causes; "" when it shows them all. */
export function moreText(more: number): string {
  return more > 0 ? `… ${more} more in the detail` : '';
}

/** The summary's recommendation where it has a call to copy, else null. */
export function recommendationOf(summary: IRunSummary | undefined | null): IRecommendation | null {
  const r = summary?.recommendation;
  return r && typeof r.call === 'string' && r.call ? r : null;
}
