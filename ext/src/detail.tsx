/**
 * One run's detail in the panel: Overview, Compile, Graph breaks, Graphs, Guards, Kernels and Lines
 * tabs.  The Overview shows the digest's headline, speedup phrase, verdict and payback sentences,
 * the breakdown of a call (breakdownview.tsx) and the memory ratio and device peaks; the Compile tab
 * max-autotune's choices and the CUDA-graph skips; the Kernels tab each kernel's achieved GB/s and
 * TFLOP/s with their share of the peak and the roofline (measuredview.tsx); the Guards tab each
 * Dynamo graph's guards and the recompiles' failed guards (guardsview.tsx); the Lines tab every
 * variant the digest's time per line names, eager's column first when it was measured, each cell as
 * linecell.ts words it.
 */

import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import * as React from 'react';

import { CallBreakdown, CallVerdict } from './breakdownview';
import { Chart } from './chart';
import { ChartRenderer } from './charts';
import { CodeView } from './codeview';
import { formatBytes, formatMs, formatS, formatSpeedup } from './format';
import { GuardsTab } from './guardsview';
import {
  filterKernels,
  highlightLanguage,
  IKernelSort,
  IRateCell,
  kernelRate,
  KernelSortKey,
  languageLabel,
  nextSort,
  pageOf,
  sortKernels
} from './kernels';
import { lineCell } from './linecell';
import { AutotuneChoices, CudagraphSkips, MeasuredNotes, Roofline } from './measuredview';
import { IKernel, ILineRow, IPlotlyFigure, IProfileRun } from './types';

export interface IDetailServices {
  charts: ChartRenderer;
  languages: IEditorLanguageRegistry;
  revealLine: (run: IProfileRun, line: number | null) => Promise<boolean>;
}

export const DETAIL_TABS = ['Overview', 'Compile', 'Graph breaks', 'Graphs', 'Guards', 'Kernels', 'Lines'] as const;
export type DetailTab = (typeof DETAIL_TABS)[number];

const KERNEL_PAGE = 50;

export function RunDetail(props: {
  run: IProfileRun;
  figures: Record<string, IPlotlyFigure> | null;
  services: IDetailServices;
  tab: DetailTab;
  onTab: (tab: DetailTab) => void;
}): JSX.Element {
  const { run, tab } = props;
  const counts: Partial<Record<DetailTab, number>> = {
    'Graph breaks': run.graph_breaks.length,
    Graphs: run.graphs.length,
    Kernels: run.kernels.length
  };
  return (
    <div className="cp-Detail" data-run-id={run.id}>
      <div className="cp-Tabs" role="tablist">
        {DETAIL_TABS.map(name => (
          <button
            key={name}
            role="tab"
            aria-selected={name === tab}
            className={`cp-Tab${name === tab ? ' cp-mod-active' : ''}`}
            onClick={() => props.onTab(name)}
          >
            {name}
            {counts[name] !== undefined ? ` (${counts[name]})` : ''}
          </button>
        ))}
      </div>
      <div className="cp-TabBody" data-tab={tab}>
        {tab === 'Overview' && <Overview {...props} />}
        {tab === 'Compile' && <Compile {...props} />}
        {tab === 'Graph breaks' && <GraphBreaks {...props} />}
        {tab === 'Graphs' && <Graphs {...props} />}
        {tab === 'Guards' && <GuardsTab run={run} revealLine={props.services.revealLine} />}
        {tab === 'Kernels' && <Kernels {...props} />}
        {tab === 'Lines' && <Lines {...props} />}
      </div>
    </div>
  );
}

type TabProps = { run: IProfileRun; figures: Record<string, IPlotlyFigure> | null; services: IDetailServices };

function Overview({ run, figures, services }: TabProps): JSX.Element {
  // The digest's words (digest/summary.py): a slowdown reads "1.80× slower", as on the card.
  const s = run.summary?.speedup ?? null;
  const confidence = run.speedup?.confidence ?? 0.95;
  return (
    <div className="cp-Overview">
      {run.summary?.headline ? <p className="cp-Headline">{run.summary.headline}</p> : null}
      {s ? (
        <p className="cp-Speedup">
          <strong>{s.phrase}</strong> with {s.variant}{' '}
          <span className="cp-Interval">
            {s.has_interval
              ? `(${Math.round(confidence * 100)}% interval ${formatSpeedup(s.low)}–${formatSpeedup(s.high)})`
              : '(too few samples for an interval)'}
          </span>
        </p>
      ) : (
        <p className="cp-Speedup">No speedup figure: {run.status}.</p>
      )}
      <CallVerdict summary={run.summary} />
      <table className="cp-Table">
        <thead>
          <tr>
            <th>variant</th>
            <th>median</th>
            <th>p10–p90</th>
            <th>n</th>
            <th>compile</th>
            <th>peak memory</th>
          </tr>
        </thead>
        <tbody>
          {run.variants.map(v => (
            <tr key={v.name}>
              <td>{v.name}</td>
              <td>{v.timing ? formatMs(v.timing.median_ms) : v.error ? 'failed' : '—'}</td>
              <td>{v.timing ? `${formatMs(v.timing.p10_ms)}–${formatMs(v.timing.p90_ms)}` : ''}</td>
              <td>{v.timing?.n ?? ''}</td>
              <td>{formatS(v.compile_s)}</td>
              <td>{v.peak_memory_bytes !== null && v.peak_memory_bytes !== undefined ? formatBytes(v.peak_memory_bytes) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <MeasuredNotes summary={run.summary} />
      <CallBreakdown summary={run.summary} figure={figures?.breakdown} charts={services.charts} />
      {run.summary?.correctness && (
        <p className={`cp-Correctness cp-mod-${run.summary.correctness.ok === false ? 'bad' : 'ok'}`}>
          {run.summary.correctness.text}
        </p>
      )}
      {run.summary?.warnings.length ? (
        <ul className="cp-List cp-Warnings">
          {run.summary.warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      ) : null}
      {run.errors.map((e, i) => (
        <p key={i} className="cp-Error">
          {e.stage}
          {e.variant ? ` (${e.variant})` : ''}
          {e.line ? `, cell line ${e.line}` : ''}: {e.message}
        </p>
      ))}
      {run.memory_note ? <p className="cp-Note">{run.memory_note}</p> : null}
      <Chart name="variants" figure={figures?.variants} charts={services.charts} height={260} />
      <Chart name="samples" figure={figures?.samples} charts={services.charts} height={280} />
    </div>
  );
}

function Compile({ run, figures, services }: TabProps): JSX.Element {
  const c = run.cache;
  return (
    <div className="cp-Compile">
      <table className="cp-Table">
        <tbody>
          <tr>
            <th>cache</th>
            <td>{c.state}</td>
          </tr>
          <tr>
            <th>FX graph cache</th>
            <td>
              {c.fx_graph_hits} hits, {c.fx_graph_misses} misses
            </td>
          </tr>
          <tr>
            <th>AOTAutograd cache</th>
            <td>
              {c.aot_autograd_hits} hits, {c.aot_autograd_misses} misses
            </td>
          </tr>
          {run.variants
            .filter(v => v.compile_s !== null && v.compile_s !== undefined)
            .map(v => (
              <tr key={v.name}>
                <th>compile {v.name}</th>
                <td>{formatS(v.compile_s)}</td>
              </tr>
            ))}
          {Object.entries(run.compile_phases).map(([phase, seconds]) => (
            <tr key={phase}>
              <th>{phase}</th>
              <td>{formatS(seconds)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Chart name="compile_phases" figure={figures?.compile_phases} charts={services.charts} height={240} />
      <AutotuneChoices summary={run.summary} />
      <CudagraphSkips summary={run.summary} />
      {run.recompiles.length > 0 && (
        <>
          <h4>Recompiles</h4>
          <ul className="cp-List">
            {run.recompiles.map((r, i) => (
              <li key={i}>
                {r.variant ? `${r.variant}: ` : ''}
                {r.reason}
                {r.during_timing ? ' (during timed runs)' : ''}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function GraphBreaks({ run, services }: TabProps): JSX.Element {
  const groups = run.summary?.graph_breaks ?? [];
  if (!groups.length) {
    return <p className="cp-Empty">No graph breaks: Dynamo traced the cell in whole graphs.</p>;
  }
  return (
    <ul className="cp-Breaks">
      {groups.map((b, i) => (
        <li key={i} className="cp-Break">
          <button
            className="cp-Break-line"
            disabled={b.line === null}
            title={b.line === null ? 'outside the cell' : 'Show this line in the notebook'}
            onClick={() => void services.revealLine(run, b.line)}
          >
            {b.line === null ? 'outside the cell' : `cell line ${b.line}`}
          </button>
          {b.count > 1 ? <span className="cp-Break-count">×{b.count}</span> : null}
          {b.code_line ? <code className="cp-Break-code">{b.code_line}</code> : null}
          {b.inside ? (
            <div className="cp-Break-inside">
              inside <span className="cp-Break-file">{b.inside}</span>
              {b.inside_code ? <code className="cp-Break-code">{b.inside_code}</code> : null}
            </div>
          ) : null}
          <pre className="cp-Break-reason">{b.reason_full}</pre>
        </li>
      ))}
    </ul>
  );
}

const GRAPH_KIND_LABEL: Record<string, string> = {
  dynamo: 'Dynamo',
  aot_forward: 'AOT forward',
  aot_backward: 'AOT backward',
  aot_inference: 'AOT inference',
  post_grad: 'post-grad'
};

function Graphs({ run, services }: TabProps): JSX.Element {
  const [index, setIndex] = React.useState(0);
  if (!run.graphs.length) {
    return <p className="cp-Empty">No graphs were captured.</p>;
  }
  const graph = run.graphs[Math.min(index, run.graphs.length - 1)];
  return (
    <div className="cp-Graphs">
      <select className="cp-Select" value={index} onChange={e => setIndex(Number(e.target.value))} aria-label="graph">
        {run.graphs.map((g, i) => (
          <option key={i} value={i}>
            {GRAPH_KIND_LABEL[g.kind] ?? g.kind} {g.id}
            {g.variant ? ` · ${g.variant}` : ''}
            {g.compile_id ? ` · compile ${g.compile_id}` : ''}
          </option>
        ))}
      </select>
      {graph.lines && graph.lines.length ? <p className="cp-Note">cell lines {graph.lines.join(', ')}</p> : null}
      <CodeView code={graph.code} language="Python" languages={services.languages} label={graph.id} />
    </div>
  );
}

const KERNEL_COLUMNS: { key: KernelSortKey; label: string }[] = [
  { key: 'name', label: 'kernel' },
  { key: 'language', label: 'kind' },
  { key: 'device_time_ms', label: 'time' },
  { key: 'achieved_gbps', label: 'GB/s' },
  { key: 'achieved_tflops', label: 'TFLOP/s' },
  { key: 'aten_ops', label: 'ATen ops' },
  { key: 'lines', label: 'lines' }
];

/** A kernel's row in the table: its run-unique id, or its name in runs that predate ids. */
function kernelRowId(k: IKernel): string {
  return k.id || k.name;
}

function Kernels({ run, figures, services }: TabProps): JSX.Element {
  const [sort, setSort] = React.useState<IKernelSort>({ key: 'device_time_ms', direction: 'desc' });
  const [query, setQuery] = React.useState('');
  const [page, setPage] = React.useState(0);
  const [selected, setSelected] = React.useState<string | null>(run.kernels[0] ? kernelRowId(run.kernels[0]) : null);
  const rows = React.useMemo(() => sortKernels(filterKernels(run.kernels, query), sort), [run, query, sort]);
  if (!run.kernels.length) {
    return <p className="cp-Empty">No kernels were generated.</p>;
  }
  const shown = pageOf(rows, page, KERNEL_PAGE);
  const kernel = run.kernels.find(k => kernelRowId(k) === selected) ?? null;
  return (
    <div className="cp-Kernels">
      <input
        className="cp-Filter"
        placeholder="Filter by kernel or ATen op"
        value={query}
        onChange={e => {
          setQuery(e.target.value);
          setPage(0);
        }}
      />
      <div className="cp-KernelScroll">
        <table className="cp-Table cp-KernelTable">
          <thead>
            <tr>
              {KERNEL_COLUMNS.map(c => (
                <th
                  key={c.key}
                  className="cp-Sortable"
                  aria-sort={sort.key === c.key ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
                  onClick={() => setSort(nextSort(sort, c.key))}
                >
                  {c.label}
                  {sort.key === c.key ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.items.map(k => (
              <tr
                key={kernelRowId(k)}
                className={kernelRowId(k) === selected ? 'cp-mod-selected' : ''}
                data-kernel={k.name}
                title={k.variant ? `${k.name} (${k.variant})` : k.name}
                onClick={() => setSelected(kernelRowId(k))}
              >
                <td className="cp-KernelName">{k.name}</td>
                <td>{languageLabel(k.language)}</td>
                <td>{k.device_time_ms !== null && k.device_time_ms !== undefined ? formatMs(k.device_time_ms) : '—'}</td>
                <RateCell field="achieved_gbps" cell={kernelRate(k, 'bandwidth')} />
                <RateCell field="achieved_tflops" cell={kernelRate(k, 'compute')} />
                <td>{(k.aten_ops ?? []).join(', ')}</td>
                <td>{(k.lines ?? []).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="cp-Pager">
        <button className="jp-Button jp-mod-minimal" disabled={shown.page === 0} onClick={() => setPage(shown.page - 1)}>
          ‹ prev
        </button>
        <span>
          page {shown.page + 1} of {shown.pageCount} · {shown.total} kernel{shown.total === 1 ? '' : 's'}
        </span>
        <button
          className="jp-Button jp-mod-minimal"
          disabled={shown.page >= shown.pageCount - 1}
          onClick={() => setPage(shown.page + 1)}
        >
          next ›
        </button>
      </div>
      {kernel && (
        <CodeView
          code={kernel.source}
          language={highlightLanguage(kernel.language)}
          languages={services.languages}
          label={kernel.name}
        />
      )}
      <Roofline summary={run.summary} figure={figures?.roofline} charts={services.charts} />
    </div>
  );
}

/** A kernel's achieved rate and, beside it, its share of the peak ("—" when not measured). */
function RateCell({ field, cell }: { field: string; cell: IRateCell }): JSX.Element {
  return (
    <td data-field={field} className="cp-Rate">
      {cell.rate}
      {cell.rate !== '—' && cell.share !== '—' ? <span className="cp-RateShare"> · {cell.share}</span> : null}
    </td>
  );
}

function Lines({ run, figures, services }: TabProps): JSX.Element {
  const lines = run.summary?.lines;
  if (!lines) {
    return <p className="cp-Empty">This server sent no time per cell line.</p>;
  }
  const loose = Object.entries(lines.unattributed).filter(([, n]) => n > 0);
  return (
    <div className="cp-Lines">
      {figures?.lines ? <Chart name="lines" figure={figures.lines} charts={services.charts} height={240} /> : null}
      {lines.rows.length ? (
        <table className="cp-Table cp-LineTable">
          <thead>
            <tr>
              <th>line</th>
              <th>code</th>
              {lines.variants.map(v => (
                <th key={v} data-variant={v}>
                  {variantLabel(v)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {lines.rows.map(r => (
              <tr
                key={r.line}
                data-line={r.line}
                onClick={() => void services.revealLine(run, r.line)}
                className="cp-LineRow"
              >
                <td>{r.line}</td>
                <td>
                  <code>{r.code}</code>
                  {r.graph_breaks ? <span className="cp-Badge cp-mod-slower">break</span> : null}
                </td>
                {lines.variants.map(v => (
                  <LineCell key={v} variant={v} row={r} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="cp-Empty">No kernel or graph break was traced back to a cell line.</p>
      )}
      {loose.length > 0 && (
        <p className="cp-Note cp-Unattributed">
          tied to no cell line:{' '}
          {loose
            .map(([v, n]) => `${variantLabel(v)} ${n} kernel${n === 1 ? '' : 's'} (${formatMs(lines.unattributed_ms[v])})`)
            .join(', ')}
        </p>
      )}
      <p className="cp-Note cp-LineRule">Time per cell line: {lines.rule}.</p>
    </div>
  );
}

/** Kernels recorded without a variant are named as kernels, as the text view names them. */
function variantLabel(variant: string): string {
  return variant || 'kernels';
}

/** One variant's time on one line and what it came from (linecell.ts): blank where the text view is blank. */
function LineCell({ variant, row }: { variant: string; row: ILineRow }): JSX.Element {
  const cell = lineCell(variant, row);
  if (!cell) {
    return <td data-variant={variant} />;
  }
  return (
    <td data-variant={variant} title={cell.title || undefined}>
      <span className="cp-LineTime">{cell.time}</span>
      {cell.note ? <span className="cp-LineKernels"> · {cell.note}</span> : null}
    </td>
  );
}
