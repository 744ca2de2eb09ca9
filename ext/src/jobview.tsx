/**
 * A distributed job laid out (issue 14): the digest's headline and compile-spread sentence, one row
 * per rank with the digest's words for each figure, the ranks that differ from the rest highlighted
 * with the digest's reasons under them, a rank's error and notes under its row, the notes on the columns
 * (peak memory, DDP's bucket order) under the table, the ranks whose runs are missing, and the job's HTML report.
 * A rank's row opens that run's detail.  Every figure and sentence is the digest's (digest/job.py).
 */

import * as React from 'react';

import { divergencesBesideRows, IJobRank, IJobTab, missingRanks } from './job';

/** The table's columns: heading, tooltip, what a row shows under it, and whether its words may wrap. */
const COLUMNS: {
  head: string;
  title: string;
  cell: (r: IJobRank) => React.ReactNode;
  wrap?: boolean | 'wide';
}[] = [
  { head: 'host', title: 'the host this rank ran on', cell: r => r.host },
  { head: 'eager', title: "eager's median call on this rank", cell: r => r.eager_text },
  { head: 'compiled', title: "the compiled variant's median call on this rank", cell: r => r.compiled_text },
  {
    head: 'speedup',
    title: 'compiled over eager on this rank, with its interval',
    cell: r => (
      <>
        {r.speedup_text}
        {r.interval_text ? <span className="cp-Interval"> {r.interval_text}</span> : null}
      </>
    )
  },
  { head: 'compile', title: 'time spent compiling on this rank', cell: r => r.compile_text },
  { head: 'graphs', title: 'Dynamo graphs', cell: r => String(r.graphs) },
  {
    head: 'DDP buckets',
    title: "pieces DDPOptimizer split the graphs into at DDP's bucket boundaries",
    cell: r => String(r.ddp_buckets)
  },
  { head: 'breaks', title: 'graph breaks', cell: r => String(r.breaks) },
  { head: 'recompiles', title: 'recompiles', cell: r => String(r.recompiles) },
  {
    head: 'cache hits / misses',
    title: "the compile cache's hits and misses",
    cell: r => `${r.cache_hits} / ${r.cache_misses}`
  },
  {
    head: 'peak memory',
    title: "the compiled step's peak memory",
    cell: r => r.peak_memory_text,
    wrap: true
  },
  {
    head: 'collective share',
    title: "the share of a call's time in collectives",
    cell: r => r.collective_text,
    wrap: true
  },
  {
    head: 'correctness',
    title: "this rank's correctness check",
    cell: r => r.correctness_text,
    wrap: 'wide'
  },
  { head: 'calls', title: 'calls of the step this rank made', cell: r => String(r.cell_runs) }
];

export interface IJobViewProps {
  page: IJobTab;
  openRun: (runId: string) => void;
  reportUrl: string;
  onReload: () => void;
}

export function JobView({ page, openRun, reportUrl, onReload }: IJobViewProps): JSX.Element {
  const { job } = page;
  const beside = divergencesBesideRows(job);
  const missing = missingRanks(job);
  return (
    <div className="cp-Job" data-job-id={job.job_id}>
      <div className="cp-JobHeader">
        <h2 className="cp-JobName">job {job.job_id}</h2>
        <span className="cp-Note cp-JobMeta">
          {job.world_size} rank{job.world_size === 1 ? '' : 's'}
          {job.backend ? ` · ${job.backend}` : ''}
          {job.torchrun_id ? ` · torchrun ${job.torchrun_id}` : ''}
        </span>
        <span className="cp-JobActions">
          <a
            className="jp-Button jp-mod-styled cp-JobReport"
            href={reportUrl}
            target="_blank"
            rel="noopener noreferrer"
          >
            HTML report
          </a>
          <button
            className="jp-Button jp-mod-minimal"
            title="Reload the job"
            aria-label="reload job"
            onClick={onReload}
          >
            ↻
          </button>
        </span>
      </div>
      <p className="cp-JobHeadline">{job.headline}</p>
      {job.compile_spread.text ? <p className="cp-JobSpread">{job.compile_spread.text}</p> : null}
      {missing.length ? (
        <div className="cp-JobMissing">
          <span>missing rank{missing.length === 1 ? '' : 's'}:</span>
          <ul>
            {missing.map(m => (
              <li key={m.rank} data-rank={m.rank}>
                rank {m.rank}
                {m.text ? `: ${m.text}` : ''}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="cp-JobTableWrap">
        <table className="cp-Table cp-JobTable">
          <thead>
            <tr>
              <th title="the process's rank in the job">rank</th>
              {COLUMNS.map(c => (
                <th key={c.head} title={c.title}>
                  {c.head}
                </th>
              ))}
            </tr>
          </thead>
          {job.rows.map(row => (
            <tbody
              key={row.rank}
              className={`cp-JobRank${row.divergent ? ' cp-mod-divergent' : ''}`}
              data-rank={row.rank}
            >
              <tr
                className="cp-JobRow"
                data-rank={row.rank}
                data-run-id={row.run_id}
                title={`Open rank ${row.rank}'s run (${row.run_id})`}
                onClick={() => openRun(row.run_id)}
              >
                <th>
                  <button className="cp-LinkButton" aria-label={`open rank ${row.rank}'s run`}>
                    {row.rank}
                  </button>
                  {row.status && row.status !== 'ok' ? <span className="cp-Note"> {row.status}</span> : null}
                </th>
                {COLUMNS.map(c => (
                  <td
                    key={c.head}
                    className={c.wrap ? `cp-mod-wrap${c.wrap === 'wide' ? ' cp-mod-wide' : ''}` : undefined}
                  >
                    {c.cell(row)}
                  </td>
                ))}
              </tr>
              {row.reasons.length ? (
                <tr className="cp-JobReasons" data-rank={row.rank}>
                  <td colSpan={COLUMNS.length + 1}>
                    <ul>
                      {row.reasons.map((reason, i) => (
                        <li key={i}>{reason}</li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ) : null}
              {row.error_text ? (
                <tr className="cp-JobError" data-rank={row.rank}>
                  <td colSpan={COLUMNS.length + 1}>error: {row.error_text}</td>
                </tr>
              ) : null}
              {row.notes.length ? (
                <tr className="cp-JobNotes" data-rank={row.rank}>
                  <td colSpan={COLUMNS.length + 1}>
                    <ul>
                      {row.notes.map((note, i) => (
                        <li key={i}>{note}</li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ) : null}
            </tbody>
          ))}
        </table>
      </div>
      {[job.peak_memory_note, job.ddp_note]
        .filter(note => note)
        .map((note, i) => (
          <p key={i} className="cp-Note cp-JobTableNote">
            {note}
          </p>
        ))}
      {beside.length ? (
        <ul className="cp-JobDivergences">
          {beside.map((d, i) => (
            <li key={i} data-rank={d.rank}>
              rank {d.rank}: {d.text}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
