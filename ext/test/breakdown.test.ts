/** breakdown.ts: the breakdown table's rows in the digest's words, and the verdict and payback sentences. */

import { breakdownColumns, breakdownRows, paybackText, verdictText } from '../src/breakdown';
import { IBreakdownRow } from '../src/types';
import { summary } from './fixtures';

function row(extra: Partial<IBreakdownRow> = {}): IBreakdownRow {
  return {
    variant: 'inductor/default',
    method: 'cupti',
    median_ms: 0.358,
    library_ms: 0.1,
    generated_ms: 0.049,
    aten_ms: 0,
    copy_ms: 0.0005,
    kernels_ms: 0.1495,
    outside_ms: 0.2085,
    ...extra
  };
}

// as the digest serves a run's (digest/breakdown.py breakdown_columns: collectives after copies where timed)
const COLUMNS = [
  { key: 'library', label: 'library' },
  { key: 'generated', label: 'generated' },
  { key: 'aten', label: 'ATen' },
  { key: 'copies', label: 'copies' },
  { key: 'outside', label: 'outside kernels' },
  { key: 'call', label: 'call' }
];
const DISTRIBUTED = [
  ...COLUMNS.slice(0, 4),
  { key: 'collectives', label: 'collectives' },
  ...COLUMNS.slice(4)
];

describe('breakdownRows', () => {
  it("shows each part in the digest's words, in the columns' order", () => {
    const texts = {
      library: '100 µs',
      generated: '49 µs',
      aten: '0 ns',
      copies: '500 ns',
      outside: '208 µs',
      call: '358 µs'
    };
    const rows = breakdownRows(summary('r', '', { breakdown_columns: COLUMNS, breakdown: [row({ texts })] }));
    expect(rows).toEqual([{ variant: 'inductor/default', method: 'cupti', parts: texts, withheld: '' }]);
    expect(Object.keys(rows[0].parts)).toEqual(COLUMNS.map(c => c.key));
  });

  it("shows a withheld row's cells in the digest's words, with why", () => {
    const why =
      "inductor/default's profiler pass is withheld: its kernels took 19.8 ms a call against a 2.62 ms timed call";
    const texts = {
      library: '61% of pass',
      generated: '39% of pass',
      aten: '0% of pass',
      copies: '0% of pass',
      outside: '—',
      call: '2.62 ms'
    };
    const [r] = breakdownRows(
      summary('r', '', {
        breakdown_columns: COLUMNS,
        breakdown: [
          row({
            library_ms: 12,
            generated_ms: 7.8,
            kernels_ms: 19.8,
            trusted: false,
            withheld_text: why,
            texts
          })
        ]
      })
    );
    expect(r.parts).toEqual(texts);
    expect(r.withheld).toBe(why);
  });

  it("keeps the digest's order of variants, eager included", () => {
    const rows = breakdownRows(
      summary('r', '', {
        breakdown_columns: COLUMNS,
        breakdown: [
          row({ variant: 'eager', method: 'host' }),
          row(),
          row({ variant: 'inductor/max-autotune' })
        ]
      })
    );
    expect(rows.map(r => r.variant)).toEqual(['eager', 'inductor/default', 'inductor/max-autotune']);
    expect(rows[0].method).toBe('host');
  });

  it('gives no rows for runs older than the breakdown, or none measured', () => {
    expect(breakdownRows(summary('r', ''))).toEqual([]);
    expect(breakdownRows(summary('r', '', { breakdown: [] }))).toEqual([]);
    expect(breakdownRows(undefined)).toEqual([]);
    expect(breakdownRows(null)).toEqual([]);
  });
});

describe('breakdownColumns', () => {
  it("takes the digest's columns, collectives included, each read from its row field", () => {
    const columns = breakdownColumns(summary('r', '', { breakdown_columns: DISTRIBUTED }));
    expect(columns.map(c => c.key)).toEqual(DISTRIBUTED.map(c => c.key));
    expect(columns.map(c => c.label)).toEqual(DISTRIBUTED.map(c => c.label));
    expect(columns.find(c => c.key === 'collectives')?.field).toBe('collective_ms');
    expect(columns.find(c => c.key === 'copies')?.field).toBe('copy_ms');
  });

  it("shows the digest's words for the collectives of every row, a dash where it words none", () => {
    // the digest words the collectives column in every row, one that spent none in them too ("0 ns"); the table
    // words nothing itself
    const rows = breakdownRows(
      summary('r', '', {
        breakdown_columns: DISTRIBUTED,
        breakdown: [
          row({ variant: 'eager', method: 'host', collective_ms: 0.4828, texts: { collectives: '483 µs' } }),
          row({ collective_ms: 0, texts: { collectives: '0 ns' } }),
          row({ variant: 'old', collective_ms: 0.25, texts: {} })
        ]
      })
    );
    expect(Object.keys(rows[0].parts)).toEqual(DISTRIBUTED.map(c => c.key));
    expect(rows[0].parts.collectives).toBe('483 µs');
    expect(rows[1].parts.collectives).toBe('0 ns');
    expect(rows[2].parts.collectives).toBe('—');
  });

  it('has no collectives column where the digest lists none, and none for a run without a breakdown', () => {
    const rows = breakdownRows(summary('r', '', { breakdown_columns: COLUMNS, breakdown: [row()] }));
    expect(Object.keys(rows[0].parts)).toEqual(COLUMNS.map(c => c.key));
    expect(breakdownColumns(undefined)).toEqual([]);
  });

  it('leaves out a column it has no figure for', () => {
    const odd = [
      { key: 'library', label: 'library' },
      { key: 'mystery', label: '?' }
    ];
    expect(breakdownColumns(summary('r', '', { breakdown_columns: odd })).map(c => c.key)).toEqual([
      'library'
    ]);
  });
});

describe('verdict and payback', () => {
  const verdict =
    "compiled is slower: its kernels take 149 µs (eager 150 µs) but each call spends 209 µs outside them (eager 61 µs); mode='reduce-overhead' removes launch overhead";
  const payback = {
    compile_s: 71,
    saving_ms: 29,
    calls: 2450,
    text: 'compiling cost 71 s (cold cache) and saves 29 ms a call: it pays back after ~2,450 calls'
  };

  it("are the digest's sentences, unchanged", () => {
    const s = summary('r', '', { verdict, payback });
    expect(verdictText(s)).toBe(verdict);
    expect(paybackText(s)).toBe(payback.text);
  });

  it('are absent for older runs and for runs without them', () => {
    expect(verdictText(summary('r', ''))).toBeNull();
    expect(paybackText(summary('r', ''))).toBeNull();
    expect(verdictText(summary('r', '', { verdict: null, payback: null }))).toBeNull();
    expect(paybackText(summary('r', '', { verdict: null, payback: null }))).toBeNull();
    expect(verdictText(summary('r', '', { verdict: '' }))).toBeNull();
    expect(paybackText({ payback: { ...payback, text: '' } } as any)).toBeNull();
    expect(paybackText({ payback: 'x' } as any)).toBeNull();
    expect(verdictText(undefined)).toBeNull();
    expect(paybackText(null)).toBeNull();
  });

  it('keep a payback that never pays back', () => {
    const never = {
      compile_s: 3,
      saving_ms: -0.2,
      calls: null,
      text: 'compiling cost 3 s and saves nothing: it never pays back'
    };
    expect(paybackText(summary('r', '', { payback: never }))).toBe(never.text);
  });
});
