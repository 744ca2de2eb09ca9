import { cardDiagnosis, moreText, recommendationOf, SHOW_LINE_TEXT } from '../src/diagnosis';
import { ICause } from '../src/types';
import { summary } from './fixtures';

function cause(title: string, extra: Partial<ICause> = {}): ICause {
  return {
    kind: 'outside_kernels',
    title,
    cost_text: '1 ms a call',
    action: '',
    cost_ms: 1,
    cost_s: null,
    line: null,
    owner: '',
    ...extra
  };
}

describe('cardDiagnosis', () => {
  it('shows the first three causes in the digest order and counts the rest', () => {
    const causes = ['a', 'b', 'c', 'd', 'e'].map(t => cause(t));
    const d = cardDiagnosis(
      summary('r', '2026-01-01', { diagnosis: causes, diagnosis_heading: 'what costs' })
    );
    expect(d?.heading).toBe('what costs');
    expect(d?.shown.map(c => c.title)).toEqual(['a', 'b', 'c']);
    expect(d?.more).toBe(2);
    expect(moreText(d?.more ?? 0)).toBe('… 2 more in the detail');
  });
  it('leaves nothing to the detail when it shows them all', () => {
    const d = cardDiagnosis(summary('r', '2026-01-01', { diagnosis: [cause('a'), cause('b')] }));
    expect(d?.shown).toHaveLength(2);
    expect(d?.more).toBe(0);
    expect(moreText(0)).toBe('');
  });
  it('is null for a summary with no diagnosis, or one saved before it existed', () => {
    expect(cardDiagnosis(summary('r', '2026-01-01', { diagnosis: [] }))).toBeNull();
    expect(cardDiagnosis(summary('r', '2026-01-01'))).toBeNull();
  });
});

describe('recommendationOf', () => {
  it('gives the recommendation with a call to copy, else null', () => {
    const r = {
      variant: 'inductor/default',
      call: 'torch.compile(model)',
      text: 'no mode is measurably better'
    };
    expect(recommendationOf(summary('r', '2026-01-01', { recommendation: r }))).toEqual(r);
    expect(recommendationOf(summary('r', '2026-01-01', { recommendation: null }))).toBeNull();
    expect(
      recommendationOf(summary('r', '2026-01-01', { recommendation: { variant: 'x', call: '' } }))
    ).toBeNull();
    expect(recommendationOf(undefined)).toBeNull();
  });
});

describe('SHOW_LINE_TEXT', () => {
  it('does not name the line a cause title already names', () => {
    // the digest's recompile cause: its title says the line, and the panel's button sits on the same row
    const c = cause('1 recompile: x (cell line 1) changed dim 0: 8 → 16', { kind: 'recompiles', line: 1 });
    const row = `${c.title}: ${c.cost_text} ${SHOW_LINE_TEXT}`;
    expect(row.match(/line 1\b/g)).toHaveLength(1);
    expect(SHOW_LINE_TEXT).not.toMatch(/line|\d/);
  });
});
