/** breakdown.ts: the breakdown table's rows in Python's words, and the verdict and payback sentences. */

import {
  BREAKDOWN_COLUMNS,
  breakdownColumns,
  breakdownRows,
  paybackText,
  verdictText
} from '../src/breakdown';
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

describe('breakdownRows', () => {
  it('words each part as Python format_ms does, in the columns order', () => {
    const rows = breakdownRows(summary('r', '', { breakdown: [row()] }));
    expect(rows).toEqual([
      {
        variant: 'inductor/default',
        method: 'cupti',
        parts: {
          library: '100 µs',
          generated: '49 µs',
          aten: '0 ns',
          copies: '500 ns',
          outside: '208 µs', // as Python words 0.2085 ms
          call: '358 µs'
        },
        withheld: ''
      }
    ]);
  });

  it("shows a withheld row's cells in the digest's words, with why", () => {
    const why =
      "inductor/default's profiler pass is withheld: its kernels took 19.8 ms a call against a 2.62 ms timed call";
    const [r] = breakdownRows(
      summary('r', '', {
        breakdown: [
          row({
            library_ms: 12,
            generated_ms: 7.8,
            kernels_ms: 19.8,
            trusted: false,
            withheld_text: why,
            texts: {
              library: '61% of pass',
              generated: '39% of pass',
              aten: '0% of pass',
              copies: '0% of pass',
              outside: '—',
              call: '2.62 ms'
            }
          })
        ]
      })
    );
    expect(r.parts).toEqual({
      library: '61% of pass',
      generated: '39% of pass',
      aten: '0% of pass',
      copies: '0% of pass',
      outside: '—',
      call: '2.62 ms'
    });
    expect(Object.values(r.parts).filter(text => text.endsWith(' ms'))).toEqual(['2.62 ms']); // the call alone
    expect(r.withheld).toBe(why);
  });

  it('words whole milliseconds and seconds as format_ms does', () => {
    const [r] = breakdownRows(
      summary('r', '', {
        breakdown: [row({ median_ms: 1234, library_ms: 12.345, generated_ms: 1, outside_ms: 999.5 })]
      })
    );
    expect(r.parts.call).toBe('1.23 s');
    expect(r.parts.library).toBe('12.3 ms');
    expect(r.parts.generated).toBe('1 ms');
    expect(r.parts.outside).toBe('1e+03 ms');
  });

  it("keeps the digest's order of variants, eager included", () => {
    const rows = breakdownRows(
      summary('r', '', {
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

  it('has a column for each part of a call, then the call', () => {
    expect(BREAKDOWN_COLUMNS.map(c => c.key)).toEqual([
      'library',
      'generated',
      'aten',
      'copies',
      'outside',
      'call'
    ]);
    expect(BREAKDOWN_COLUMNS.map(c => c.label)).toEqual([
      'library',
      'generated',
      'ATen',
      'copies',
      'outside kernels',
      'call'
    ]);
  });

  it('gives no rows for runs older than the breakdown, or none measured', () => {
    expect(breakdownRows(summary('r', ''))).toEqual([]);
    expect(breakdownRows(summary('r', '', { breakdown: [] }))).toEqual([]);
    expect(breakdownRows(undefined)).toEqual([]);
    expect(breakdownRows(null)).toEqual([]);
    expect(breakdownRows({ breakdown: null } as any)).toEqual([]);
    expect(breakdownRows({ breakdown: 'x' } as any)).toEqual([]);
  });

  it('shows a dash for a figure a row lacks, and skips what is not a row', () => {
    const partial = { variant: 'eager', method: 'host', median_ms: 0.21 };
    const rows = breakdownRows({ breakdown: [partial, null, 3] } as any);
    expect(rows).toHaveLength(1);
    expect(rows[0].parts).toEqual({
      library: '—',
      generated: '—',
      aten: '—',
      copies: '—',
      outside: '—',
      call: '210 µs'
    });
  });
});

describe('breakdownColumns', () => {
  // as summarize() serves a distributed run's (digest/breakdown.py columns: collectives after copies)
  const distributed = [
    { key: 'library', label: 'library' },
    { key: 'generated', label: 'generated' },
    { key: 'aten', label: 'ATen' },
    { key: 'copies', label: 'copies' },
    { key: 'collectives', label: 'collectives' },
    { key: 'outside', label: 'outside kernels' },
    { key: 'call', label: 'call' }
  ];

  it("takes the digest's columns, collectives included, each read from its row field", () => {
    const columns = breakdownColumns(summary('r', '', { breakdown_columns: distributed }));
    expect(columns.map(c => c.key)).toEqual(distributed.map(c => c.key));
    expect(columns.map(c => c.label)).toEqual(distributed.map(c => c.label));
    expect(columns.find(c => c.key === 'collectives')?.field).toBe('collective_ms');
    expect(columns.find(c => c.key === 'copies')?.field).toBe('copy_ms');
  });

  it('words the collectives part of each row in the digest order', () => {
    const rows = breakdownRows(
      summary('r', '', {
        breakdown_columns: distributed,
        breakdown: [
          row({ variant: 'eager', method: 'host', collective_ms: 0.4828 }),
          row({ collective_ms: 0 })
        ]
      })
    );
    expect(Object.keys(rows[0].parts)).toEqual(distributed.map(c => c.key));
    expect(rows[0].parts.collectives).toBe('483 µs');
    expect(rows[1].parts.collectives).toBe('0 ns'); // a row that spent none in them, in a run where one did
  });

  it('has no collectives column where the digest lists none', () => {
    const plain = distributed.filter(c => c.key !== 'collectives');
    const rows = breakdownRows(summary('r', '', { breakdown_columns: plain, breakdown: [row()] }));
    expect(Object.keys(rows[0].parts)).toEqual(plain.map(c => c.key));
  });

  it('falls back to the fixed columns for a digest before breakdown_columns', () => {
    expect(breakdownColumns(summary('r', '', { breakdown: [row()] }))).toEqual([...BREAKDOWN_COLUMNS]);
    expect(breakdownColumns(undefined)).toEqual([...BREAKDOWN_COLUMNS]);
  });

  it('leaves out a column it cannot read and what is not a column', () => {
    const odd = [{ key: 'library', label: 'library' }, { key: 'mystery', label: '?' }, null, { key: 3 }];
    expect(breakdownColumns({ breakdown_columns: odd } as any).map(c => c.key)).toEqual(['library']);
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
