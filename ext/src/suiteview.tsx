/**
 * A suite over a collection of models laid out (issue 34): its headline (pass rate, geometric-mean speedup with
 * its interval), what ran where, a chip per status, the speedup chart (a bar per entry, sorted, coloured by status,
 * the geomean marked) and compile time against speedup, a row per entry (a click opens the entry's run), the
 * dashboard's flags and the notes.  Every figure and sentence is the digest's (suites/digest.py); the charts are
 * suites/charts.py's figures.  This view formats no number.
 */

import * as React from 'react';

import { Chart } from './chart';
import { ChartRenderer } from './charts';
import { ISuitePage, ISuiteRow } from './suitetypes';
import { IPlotlyFigure } from './types';

/** The table's columns: heading, tooltip, and what a row shows under it. */
const COLUMNS: {
  head: string;
  title: string;
  cell: (r: ISuiteRow) => React.ReactNode;
  wide?: boolean;
  className?: string;
}[] = [
  {
    head: 'speedup',
    title: 'eager ÷ compiled, with its 95% interval; not meaningful beneath a status that overrides it',
    cell: r => r.speedup_text,
    className: 'cp-mod-speedup'
  },
  { head: 'compile', title: 'time spent compiling, and the cache state', cell: r => r.compile_text },
  { head: 'graph breaks', title: 'graph breaks, and whose they are', cell: r => r.graph_break_text },
  { head: 'recompiles', title: 'recompiles', cell: r => r.recompile_text },
  { head: 'peak memory', title: "eager's peak memory against compiled's", cell: r => r.memory_text },
  {
    head: 'top cause',
    title: 'what costs the compiled step most time (the diagnosis)',
    cell: r => r.top_cause,
    wide: true
  }
];

export interface ISuiteViewProps {
  page: ISuitePage;
  charts: ChartRenderer;
  openRun: (runId: string) => void;
  reportUrl?: string;
  onReload?: () => void;
  onOpen?: () => void;
  /** the comparison with another stored suite, where the tab offers one (suitecompare.tsx) */
  compare?: React.ReactNode;
}

function figure(page: ISuitePage, name: string): IPlotlyFigure | undefined {
  return (page.figures?.[name] as IPlotlyFigure | undefined) ?? undefined;
}

function figureHeight(fig: IPlotlyFigure | undefined): number | undefined {
  const height = (fig?.layout as { height?: unknown } | undefined)?.height;
  return typeof height === 'number' ? height : undefined;
}

export function SuiteView({
  page,
  charts,
  openRun,
  reportUrl,
  onReload,
  onOpen,
  compare
}: ISuiteViewProps): JSX.Element {
  const suite = page.suite;
  const speedup = figure(page, 'speedup');
  const compile = figure(page, 'compile');
  return (
    <div className="cp-Suite" data-suite-id={suite.id}>
      <div className="cp-SuiteHeader">
        <h2 className="cp-SuiteName">
          suite {suite.id}: {suite.title}
          {suite.label ? ` — ${suite.label}` : ''}
        </h2>
        <span className="cp-SuiteActions">
          {onOpen ? (
            <button className="jp-Button jp-mod-styled cp-SuiteOpen" onClick={onOpen}>
              Open
            </button>
          ) : null}
          {reportUrl ? (
            <a
              className="jp-Button jp-mod-styled cp-SuiteReport"
              href={reportUrl}
              target="_blank"
              rel="noopener noreferrer"
            >
              HTML report
            </a>
          ) : null}
          {onReload ? (
            <button
              className="jp-Button jp-mod-minimal"
              title="Reload the suite"
              aria-label="reload suite"
              onClick={onReload}
            >
              ↻
            </button>
          ) : null}
        </span>
      </div>
      <p className="cp-Note cp-SuiteMeta">
        {suite.created_text} · {suite.where_text}
      </p>
      <p className="cp-Note cp-SuiteMeta">{suite.settings_text}</p>
      <p className="cp-SuiteHeadline">{suite.headline}</p>
      <p className="cp-SuiteFigures">
        {suite.summary.median_compile_text}; {suite.summary.compression_text}
      </p>
      {suite.pending_text ? <p className="cp-Note cp-SuitePending">{suite.pending_text}</p> : null}
      <ul className="cp-SuiteStatuses" aria-label="entries by status">
        {suite.status_counts.map(c => (
          <li key={c.status} className="cp-SuiteStatus" data-status={c.status}>
            <span className="cp-SuiteSwatch" style={{ background: c.colour }} aria-hidden="true" />
            {c.label}: {c.count}
          </li>
        ))}
      </ul>
      {compare}
      <div className="cp-SuiteCharts">
        <Chart figure={speedup} charts={charts} height={figureHeight(speedup)} name="suite speedup" />
        <Chart figure={compile} charts={charts} height={figureHeight(compile)} name="suite compile" />
      </div>
      <div className="cp-SuiteTableWrap">
        <table className="cp-Table cp-SuiteTable">
          <thead>
            <tr>
              <th title="the collection's entry: a model, its task and dtype">entry</th>
              <th title="the card's verdict, or how the entry's process ended">status</th>
              {COLUMNS.map(c => (
                <th key={c.head} title={c.title}>
                  {c.head}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {suite.rows.map(row => (
              <SuiteRowView key={row.name} row={row} openRun={openRun} />
            ))}
          </tbody>
        </table>
      </div>
      {suite.flags.length ? (
        <div className="cp-SuiteFlags">
          <h3>Flagged (PyTorch&apos;s dashboard thresholds)</h3>
          <ul>
            {suite.flags.map((flag, i) => (
              <li key={i}>{flag}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {suite.notes.length ? (
        <ul className="cp-Note cp-SuiteNotes">
          {suite.notes.map((note, i) => (
            <li key={i}>{note}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function SuiteRowView({ row, openRun }: { row: ISuiteRow; openRun: (runId: string) => void }): JSX.Element {
  const runId = row.run_id;
  return (
    <tr
      className={`cp-SuiteRow cp-mod-${row.tone}`}
      data-status={row.status}
      data-run-id={runId ?? undefined}
      title={runId ? `Open ${row.name}'s run (${runId})` : undefined}
      onClick={runId ? () => openRun(runId) : undefined}
    >
      <th scope="row">
        {runId ? (
          <button className="cp-LinkButton" aria-label={`open ${row.name}'s run`}>
            {row.name}
          </button>
        ) : (
          row.name
        )}
      </th>
      <td className="cp-mod-wrap cp-mod-status">
        <span className="cp-SuiteBadge" style={{ background: row.colour }}>
          {row.status_label}
        </span>
        {row.status !== 'pass' && row.status_text ? <div className="cp-Note">{row.status_text}</div> : null}
        {row.flags.length ? <div className="cp-SuiteRowFlags">{row.flags.join('; ')}</div> : null}
      </td>
      {COLUMNS.map(c => (
        <td key={c.head} className={`cp-mod-wrap${c.wide ? ' cp-mod-wide' : ''} ${c.className ?? ''}`.trim()}>
          {c.cell(row)}
        </td>
      ))}
    </tr>
  );
}
