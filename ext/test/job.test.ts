import { distributedOf, divergencesBesideRows, IJob, jobWidgetId, missingRanks } from '../src/job';
import { groupJobs, jobTitle } from '../src/runlist';
import { summary } from './fixtures';

const dist = (rank: number, job_id = 'job1', world_size = 2, backend = 'gloo') => ({
  distributed: { rank, world_size, job_id, backend }
});

function row(rank: number, extra: Partial<IJob['rows'][number]> = {}): IJob['rows'][number] {
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

function digest(extra: Partial<IJob> = {}): IJob {
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
  it("reads a job's entry, and nothing from a single-process run or one that names no job", () => {
    expect(distributedOf(summary('a', '2026-01-01T00:00:00Z', dist(1)))).toEqual({
      rank: 1,
      world_size: 2,
      job_id: 'job1',
      backend: 'gloo'
    });
    expect(distributedOf(summary('a', '2026-01-01T00:00:00Z'))).toBeNull();
    expect(distributedOf(summary('a', '2026-01-01T00:00:00Z', { distributed: null }))).toBeNull();
    const bad = [
      { rank: -1, world_size: 2, job_id: 'j', backend: '' },
      { rank: 0, world_size: 0, job_id: 'j', backend: '' },
      { rank: 0, world_size: 2, job_id: '', backend: '' }
    ];
    for (const d of bad) {
      expect(distributedOf({ distributed: d })).toBeNull();
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
  it('lists beside the table only the divergences no row shows', () => {
    expect(divergencesBesideRows(digest())).toEqual([]);
    const extra = { rank: 3, what: 'missing', text: 'rank 3 stored no run' };
    const job = digest({ divergences: [...digest().divergences, extra] });
    expect(divergencesBesideRows(job)).toEqual([extra]);
  });

  it("names each missing rank with the digest's sentence, which is then not listed again", () => {
    const gone = { rank: 2, what: 'missing', text: 'no run (it did not finish profiling)' };
    const job = digest({
      world_size: 4,
      missing_ranks: [2, 3],
      divergences: [...digest().divergences, gone]
    });
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
