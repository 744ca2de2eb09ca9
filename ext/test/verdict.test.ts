/**
 * The panel reads the digest's verdict (digest/outcome.py) and decides nothing: tests/verdict_golden.json holds the
 * summaries the digest wrote for each rung (tests/test_digest_outcome.py keeps it equal to the digest), and the
 * card's badge, the run list's badge and flag, and the speedup beneath a verdict that overrides it read them here.
 */

import { readFileSync } from 'fs';
import { join } from 'path';

import { runBadge, runFlag } from '../src/runlist';
import { IRunSummary } from '../src/types';
import { meaninglessSpeedup, notComparedText, speedupTone, verdictBadge, verdictOf } from '../src/verdict';
import { summary } from './fixtures';

type Golden = Record<string, Pick<IRunSummary, 'status' | 'list_status' | 'speedup' | 'outcome'>>;

const golden = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'tests', 'verdict_golden.json'), 'utf8')
) as Golden;

function listed(name: string): IRunSummary {
  return summary(name, '2026-01-01T10:00:00+00:00', golden[name]);
}

describe("the digest's verdict", () => {
  it('has a case for each rung the panel shows', () => {
    expect(Object.keys(golden).sort()).toEqual(
      ['compile_failed', 'faster', 'not_measurable', 'partly_eager', 'ran_eagerly', 'results_differ'].sort()
    );
  });

  it.each(Object.keys(golden))(
    '%s: the badge shows the verdict in its tone, as the digest words it',
    name => {
      const s = listed(name);
      expect(verdictBadge(s)).toBe(golden[name].outcome!.label);
      expect(runBadge(s)).toBe(golden[name].outcome!.label);
      expect(speedupTone(s)).toBe(golden[name].outcome!.tone);
    }
  );

  it('leads with "results differ" in its own tone, not the speedup\'s, with the speedup beneath not meaningful', () => {
    const s = listed('results_differ');
    expect(runBadge(s)).toBe('results differ');
    expect(speedupTone(s)).toBe('wrong'); // the interval alone reads "even": the digest's tone wins
    expect(meaninglessSpeedup(s)).toBe('1.05× slower — not meaningful: compiled results differ');
    expect(runFlag(s)).toBeNull(); // the badge says it: not twice
    // an interrupted run whose results differ: the badge says the verdict, the flag only what it does not
    expect(runFlag({ ...s, status: 'interrupted', list_status: 'interrupted, results differ' })).toBe(
      'interrupted'
    );
  });

  it('leads with the eager fallback where the recompile limit stopped compiled code', () => {
    const s = listed('ran_eagerly');
    expect([runBadge(s), speedupTone(s)]).toEqual(['ran eagerly', 'eager']);
    expect(meaninglessSpeedup(s)).toBe('1.05× slower — not meaningful: the compiled calls ran eagerly');
  });

  it('keeps a meaningful speedup as the badge, flagging a part that ran eagerly beside it', () => {
    const s = listed('partly_eager');
    expect(runBadge(s)).toBe('1.05× slower');
    expect(runFlag(s)).toBe('partly eager');
    expect(meaninglessSpeedup(s)).toBeNull();
    for (const name of ['faster', 'not_measurable']) {
      expect(meaninglessSpeedup(listed(name))).toBeNull();
      expect(runFlag(listed(name))).toBeNull();
    }
  });

  it('shows a failed compile as the badge, with no speedup to mark', () => {
    const s = listed('compile_failed');
    expect([runBadge(s), speedupTone(s), meaninglessSpeedup(s)]).toEqual(['compile failed', 'wrong', null]);
  });

  it('reads a summary written before the verdict by its speedup, as it showed then', () => {
    const old = { ...listed('results_differ'), outcome: undefined };
    expect(verdictOf(old)).toBeNull();
    expect(runBadge(old)).toBe('1.05× slower');
    expect(runFlag(old)).toBe('results differ'); // its list_status, beside the speedup
    expect(speedupTone(old)).toBe('even');
    expect(meaninglessSpeedup(old)).toBeNull();
    // the tone is read off the flags the digest set, never off the bounds: bounds that say otherwise are not read
    const flags = (value: number, has_interval: boolean, includes_one: boolean) => ({
      speedup: { ...old.speedup!, value, low: 0.5, high: 0.6, has_interval, includes_one }
    });
    expect(speedupTone(flags(2, true, false))).toBe('faster');
    expect(speedupTone(flags(0.8, true, false))).toBe('slower');
    expect(speedupTone(flags(2, true, true))).toBe('even');
    expect(speedupTone(flags(0.27, false, false))).toBe('even');
    expect(speedupTone({ speedup: null })).toBe('none');
  });

  it('says on the card why results were not compared, and nothing where they were', () => {
    const base = listed('faster');
    const random = 'not compared: the cell draws random numbers (aten.rand): set fallback_random = True';
    const correctness = (ok: boolean | null, text: string) => ({
      ...base,
      correctness: { ok, max_abs_diff: null, note: '', method: '', text }
    });
    expect(notComparedText(correctness(null, random))).toBe(`correctness ${random}`);
    expect(
      notComparedText(correctness(true, 'compiled results match eager within dtype tolerance'))
    ).toBeNull();
    expect(notComparedText(correctness(false, 'compiled results differ from eager in y'))).toBeNull();
    expect(notComparedText({ ...base, correctness: null })).toBeNull();
    expect(notComparedText(correctness(null, ''))).toBeNull(); // a saved card edited by hand: nothing to say
  });
});
