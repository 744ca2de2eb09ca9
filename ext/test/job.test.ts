import {
  distributedOf,
  divergencesBesideRows,
  jobWidgetId,
  missingRanks,
  parseJobDigest,
  parseJobPage
} from '../src/job';
import { groupJobs, jobTitle } from '../src/runlist';
import { summary } from './fixtures';

const dist = (rank: number, job_id = 'job1', world_size = 2, backend = 'gloo') => ({
  distributed: { rank, world_size, job_id, backend }
});

function row(rank: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    rank,
    run_id: `r${rank}`,
    host: 'node0',
    status: 'ok',
    speedup: 1.5,
    speedup_text: '1.50×',
    interval_text: '[1.40, 1.60] 95% CI',
    compile_s: 2,
    compile_text: '2.00 s',
    graphs: 1,
    ddp_buckets: 2,
    breaks: 0,
    recompiles: 0,
    cache_hits: 0,
    cache_misses: 3,
    peak_memory_bytes: null,
    peak_memory_text: '',
    collective_share: 0.25,
    collective_text: '25%',
    cell_runs: 40,
    eager_text: '9.43 ms',
    compiled_text: '6.29 ms',
    correctness_text: 'compiled results match eager within dtype tolerance (max abs diff 0)',
    error_text: '',
    divergent: false,
    reasons: [],
    notes: [],
    ...extra
  };
}

function digest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    job_id: 'job1',
    world_size: 2,
    backend: 'gloo',
    torchrun_id: '',
    ranks: [0, 1],
    missing_ranks: [],
    headline: 'rank 1 differs',
    compile_spread: { min_s: 2, median_s: 4, max_s: 6, text: 'compile 2.00 s to 6.00 s across ranks' },
    rows: [row(0), row(1, { divergent: true, reasons: ['rank 1 compiled 2 graphs, rank 0 1'] })],
    divergences: [{ rank: 1, what: 'graphs', text: 'rank 1 compiled 2 graphs, rank 0 1' }],
    peak_memory_note: 'peak memory is measured on CUDA devices only; this run was on CPU',
    ddp_note: '',
    ...extra
  };
}

describe("a run's place in a job", () => {
  it('reads a well-formed entry, and nothing from a single-process, older or malformed one', () => {
    expect(distributedOf(summary('a', '2026-01-01T00:00:00Z', dist(1)))).toEqual({
      rank: 1,
      world_size: 2,
      job_id: 'job1',
      backend: 'gloo'
    });
    expect(distributedOf(summary('a', '2026-01-01T00:00:00Z'))).toBeNull();
    expect(distributedOf(summary('a', '2026-01-01T00:00:00Z', { distributed: null }))).toBeNull();
    const bad = [
      { rank: -1, world_size: 2, job_id: 'j' },
      { rank: 0, world_size: 0, job_id: 'j' },
      { rank: 0, world_size: 2, job_id: '' },
      'rank 0'
    ];
    for (const d of bad) {
      expect(distributedOf({ distributed: d as any })).toBeNull();
    }
  });
});

describe("the run list groups a job's ranks", () => {
  const runs = [
    summary('solo-new', '2026-01-03T00:00:00Z'),
    summary('j1r1', '2026-01-02T00:00:00Z', dist(1)),
    summary('j2r0', '2026-01-02T00:00:00Z', dist(0, 'job2', 1, 'nccl')),
    summary('solo-old', '2026-01-01T00:00:00Z'),
    summary('j1r0', '2026-01-01T00:00:00Z', dist(0))
  ];

  it("puts a job's runs under one row where its newest run stands, ranks in order", () => {
    const entries = groupJobs(runs);
    expect(entries.map(e => (e.kind === 'run' ? e.run.id : `job:${e.jobId}`))).toEqual([
      'solo-new',
      'job:job1',
      'job:job2',
      'solo-old'
    ]);
    const job1 = entries[1];
    expect(job1.kind === 'job' && job1.runs.map(r => [r.rank, r.run.id])).toEqual([
      [0, 'j1r0'],
      [1, 'j1r1']
    ]);
  });

  it('leaves a list without jobs as it is', () => {
    const plain = [summary('b', '2026-01-02T00:00:00Z'), summary('a', '2026-01-01T00:00:00Z')];
    expect(groupJobs(plain)).toEqual(plain.map(run => ({ kind: 'run', run })));
  });

  it('titles a job by its id, its ranks and backend, saying when ranks are missing', () => {
    const [, job1, job2] = groupJobs(runs);
    expect(jobTitle(job1 as any)).toBe('job job1 · 2 ranks (gloo)');
    expect(jobTitle(job2 as any)).toBe('job job2 · 1 rank (nccl)');
    expect(jobTitle({ jobId: 'j', worldSize: 4, backend: '', runs: [1, 2] })).toBe('job j · 2 of 4 ranks');
  });
});

describe("the job's digest", () => {
  it("keeps the digest's words as sent", () => {
    const job = parseJobDigest(digest());
    expect(job.headline).toBe('rank 1 differs');
    expect(job.compile_spread.text).toBe('compile 2.00 s to 6.00 s across ranks');
    expect(job.rows.map(r => [r.rank, r.divergent, r.reasons])).toEqual([
      [0, false, []],
      [1, true, ['rank 1 compiled 2 graphs, rank 0 1']]
    ]);
    expect(job.rows[0]).toEqual(row(0));
  });

  it('drops malformed rows, ranks and divergences and defaults missing words', () => {
    const job = parseJobDigest(
      digest({
        ranks: [0, 'one', 1.5, 1],
        missing_ranks: null,
        compile_spread: 'fast',
        rows: [
          row(0, { graphs: 'two', reasons: ['', 3, 'why'], divergent: 'yes', speedup: NaN }),
          { rank: 1 },
          'row',
          row(-2)
        ],
        divergences: [{ rank: 0, text: '' }, { rank: 3, what: 'missing', text: 'rank 3 stored no run' }, null]
      })
    );
    expect(job.ranks).toEqual([0, 1]);
    expect(job.missing_ranks).toEqual([]);
    expect(job.compile_spread).toEqual({ min_s: null, median_s: null, max_s: null, text: '' });
    expect(job.rows).toHaveLength(1);
    expect(job.rows[0]).toMatchObject({ graphs: 0, reasons: ['why'], divergent: false, speedup: null });
    expect(job.divergences).toEqual([{ rank: 3, what: 'missing', text: 'rank 3 stored no run' }]);
  });

  it("keeps each rank's medians, correctness, error and notes, and the notes under the table, as text", () => {
    const job = parseJobDigest(
      digest({
        ddp_note: 'DDP buckets: numbered in forward order',
        rows: [
          row(0, {
            notes: ['its compiled call (204 ms, of which kernels 3.79 ms) includes waiting for rank 1', 7, '']
          }),
          row(1, {
            compiled_text: 'failed',
            error_text: 'compiled run: AssertionError: First bucket <b>',
            correctness_text: 5
          })
        ]
      })
    );
    expect(job.rows.map(r => [r.eager_text, r.compiled_text, r.error_text, r.notes])).toEqual([
      [
        '9.43 ms',
        '6.29 ms',
        '',
        ['its compiled call (204 ms, of which kernels 3.79 ms) includes waiting for rank 1']
      ],
      ['9.43 ms', 'failed', 'compiled run: AssertionError: First bucket <b>', []]
    ]);
    expect(job.rows[1].correctness_text).toBe('');
    expect(job.peak_memory_note).toBe('peak memory is measured on CUDA devices only; this run was on CPU');
    expect(job.ddp_note).toBe('DDP buckets: numbered in forward order');
  });

  it('reads a digest from before the added fields: empty words, no notes', () => {
    const old = digest({ rows: [row(0)] });
    delete old.peak_memory_note;
    delete old.ddp_note;
    const oldRow = (old.rows as Record<string, unknown>[])[0];
    for (const key of ['eager_text', 'compiled_text', 'correctness_text', 'error_text', 'notes']) {
      delete oldRow[key];
    }
    const job = parseJobDigest(old);
    expect(job.rows[0]).toMatchObject({
      eager_text: '',
      compiled_text: '',
      correctness_text: '',
      error_text: '',
      notes: []
    });
    expect([job.peak_memory_note, job.ddp_note]).toEqual(['', '']);
  });

  it('refuses what is no job', () => {
    expect(() => parseJobDigest(null)).toThrow('no job digest');
    expect(() => parseJobDigest({ job_id: 'j' })).toThrow('no job digest');
    expect(() => parseJobPage([])).toThrow('no job');
    expect(() => parseJobPage({ runs: [] })).toThrow('no job digest');
  });

  it('reads the page: the digest and the runs that have an id', () => {
    const page = parseJobPage({
      job: digest(),
      runs: [summary('r0', '2026-01-01T00:00:00Z'), { label: 'no id' }]
    });
    expect(page.job.job_id).toBe('job1');
    expect(page.runs.map(r => r.id)).toEqual(['r0']);
  });

  it('lists beside the table only the divergences no row shows', () => {
    expect(divergencesBesideRows(parseJobDigest(digest()))).toEqual([]);
    const extra = { rank: 3, what: 'missing', text: 'rank 3 stored no run' };
    const job = parseJobDigest(digest({ divergences: [...(digest().divergences as unknown[]), extra] }));
    expect(divergencesBesideRows(job)).toEqual([extra]);
  });

  it("names each missing rank with the digest's sentence, which is then not listed again", () => {
    const gone = { rank: 2, what: 'missing', text: 'no run (it did not finish profiling)' };
    const job = parseJobDigest(
      digest({
        world_size: 4,
        missing_ranks: [2, 3],
        divergences: [...(digest().divergences as unknown[]), gone]
      })
    );
    expect(missingRanks(job)).toEqual([
      { rank: 2, text: 'no run (it did not finish profiling)' },
      { rank: 3, text: '' }
    ]);
    expect(divergencesBesideRows(job)).toEqual([]);
  });

  it('makes a DOM id of any job id', () => {
    expect(jobWidgetId('3f2a9c01d4e5')).toBe('compile-profile-job-3f2a9c01d4e5');
    expect(jobWidgetId('a b"<x>')).toBe('compile-profile-job-a_b__x_');
  });
});
