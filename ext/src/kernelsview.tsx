/**
 * A run's Kernels tab: a page of kernels at a time (kernels.ts sorts, filters and pages), a row a
 * line (a name or op list too long for its column cut with an ellipsis, the whole on hover; beside a name that
 * repeats, what tells its kernels apart, its variant or compile, never cut), its time (its share of the pass where
 * the digest withholds its variant's profiler pass, in a column wide enough for "0.001% of pass", and why, once
 * above the table), achieved GB/s and TFLOP/s with their share of
 * the peak; the selected kernel's source beside the table where there is room, below it where not;
 * then the roofline chart and sentences (measuredview.tsx).
 */

import * as React from 'react';

import { CodeView } from './codeview';
import { ITabProps } from './detailprops';
import {
  filterKernels,
  highlightLanguage,
  IKernelOrigin,
  IKernelSort,
  IRateCell,
  kernelCells,
  kernelOrigins,
  KernelSortKey,
  languageLabel,
  nextSort,
  pageOf,
  rateCell,
  sortKernels,
  withheldPasses
} from './kernels';
import { Roofline } from './measuredview';
import { KERNEL_TIPS, tip } from './tooltips';
import { IKernel } from './types';

/**
 * The time column's width where a kernel's pass is withheld and its cell reads a share ("23% of pass"): 6.5em cut
 * those to "23% of p…"; "0.07% of pass" needs 8.54em with its padding (Chromium at 1600×1000, views_layout.spec.ts),
 * a share under 0.01% ("0.001% of pass") a digit more.
 */
const WITHHELD_TIME_WIDTH = '9.5em';

/** Rows per page: what a main-area tab shows without scrolling far, and renders at once. */
const KERNEL_PAGE = 50;

/**
 * The table's columns: every cell holds one line (cut with an ellipsis, the whole text in its title),
 * so a row is one line high however long a kernel's name or op list; the short columns take the width
 * their text needs (em), the name and the ATen ops share the rest.
 */
const KERNEL_COLUMNS: { key: KernelSortKey; label: string; width?: string }[] = [
  { key: 'name', label: 'kernel' },
  { key: 'language', label: 'kind', width: '4.5em' },
  { key: 'device_time_ms', label: 'time', width: '6.5em' },
  { key: 'achieved_gbps', label: 'GB/s', width: '8.5em' },
  { key: 'achieved_tflops', label: 'TFLOP/s', width: '8.5em' },
  { key: 'aten_ops', label: 'ATen ops', width: '24%' },
  { key: 'lines', label: 'lines', width: '4.5em' }
];

/** A kernel's row in the table: its run-unique id, or its name in runs that predate ids. */
function kernelRowId(k: IKernel): string {
  return k.id || k.name;
}

export function Kernels({ run, figures, services }: ITabProps): JSX.Element {
  const [sort, setSort] = React.useState<IKernelSort>({ key: 'device_time_ms', direction: 'desc' });
  const [query, setQuery] = React.useState('');
  const [page, setPage] = React.useState(0);
  const [selected, setSelected] = React.useState<string | null>(
    run.kernels[0] ? kernelRowId(run.kernels[0]) : null
  );
  const rows = React.useMemo(() => sortKernels(filterKernels(run.kernels, query), sort), [run, query, sort]);
  const withheld = React.useMemo(() => withheldPasses(run.summary), [run]);
  const cells = React.useMemo(() => kernelCells(run.kernels, run.summary?.kernel_cells), [run]);
  const origins = React.useMemo(() => kernelOrigins(run.kernels, run.graphs), [run]);
  const shares = run.kernels.some(k => withheld.has(k.variant ?? ''));
  if (!run.kernels.length) {
    return <p className="cp-Empty">No kernels were generated.</p>;
  }
  const shown = pageOf(rows, page, KERNEL_PAGE);
  const kernel = run.kernels.find(k => kernelRowId(k) === selected) ?? null;
  return (
    <div className="cp-Kernels">
      <div className="cp-KernelsMain">
        <div className="cp-KernelsList">
          {[...withheld].map(([variant, text]) => (
            <p key={variant} className="cp-Note cp-Withheld" data-variant={variant}>
              {text}
            </p>
          ))}
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
              <colgroup>
                {KERNEL_COLUMNS.map(c => {
                  const width = c.key === 'device_time_ms' && shares ? WITHHELD_TIME_WIDTH : c.width;
                  return <col key={c.key} data-field={c.key} style={width ? { width } : undefined} />;
                })}
              </colgroup>
              <thead>
                <tr>
                  {KERNEL_COLUMNS.map(c => (
                    <th
                      key={c.key}
                      className="cp-Sortable"
                      data-field={c.key}
                      title={tip(KERNEL_TIPS, c.key)}
                      aria-sort={
                        sort.key === c.key ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'
                      }
                      tabIndex={0}
                      onClick={() => setSort(nextSort(sort, c.key))}
                      onKeyDown={e => {
                        if (e.key === 'Enter' || e.key === ' ') {
                          e.preventDefault();
                          setSort(nextSort(sort, c.key));
                        }
                      }}
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
                    <NameCell name={k.name} origin={origins.get(k)} />
                    <td data-field="language">{languageLabel(k.language)}</td>
                    <OneLineCell field="device_time_ms" text={cells.get(k)?.time ?? '—'} />
                    <RateCell field="achieved_gbps" cell={rateCell(cells.get(k), 'bandwidth')} />
                    <RateCell field="achieved_tflops" cell={rateCell(cells.get(k), 'compute')} />
                    <OneLineCell field="aten_ops" text={(k.aten_ops ?? []).join(', ')} />
                    <OneLineCell field="lines" text={(k.lines ?? []).join(', ')} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="cp-Pager">
            <button
              className="jp-Button jp-mod-minimal"
              disabled={shown.page === 0}
              onClick={() => setPage(shown.page - 1)}
            >
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
        </div>
        <div className="cp-KernelsSource">
          {kernel && (
            <CodeView
              code={kernel.source}
              language={highlightLanguage(kernel.language)}
              languages={services.languages}
              label={kernel.name}
            />
          )}
        </div>
      </div>
      <Roofline summary={run.summary} figure={figures?.roofline} charts={services.charts} />
    </div>
  );
}

/**
 * A kernel's name, cut with an ellipsis where its column is narrower, and beside it, where the name repeats, what
 * tells it apart (kernels.ts kernelOrigins), never cut; its title holds both whole.
 */
function NameCell({ name, origin }: { name: string; origin: IKernelOrigin | undefined }): JSX.Element {
  return (
    <td className="cp-KernelName" data-field="name" title={origin ? `${name} (${origin.title})` : name}>
      <span className="cp-KernelName-line">
        <span className="cp-KernelName-text">{name}</span>
        {origin ? <span className="cp-KernelOrigin">{origin.label}</span> : null}
      </span>
    </td>
  );
}

/** A cell of one line, cut with an ellipsis where its column is narrower; its title holds the whole text. */
function OneLineCell({ field, text }: { field: string; text: string }): JSX.Element {
  return (
    <td data-field={field} title={text}>
      {text}
    </td>
  );
}

/** A kernel's achieved rate and, beside it, its share of the peak ("—" when not measured). */
function RateCell({ field, cell }: { field: string; cell: IRateCell }): JSX.Element {
  return (
    <td
      data-field={field}
      className="cp-Rate"
      title={cell.rate !== '—' && cell.share !== '—' ? `${cell.rate} · ${cell.share}` : cell.rate}
    >
      {cell.rate}
      {cell.rate !== '—' && cell.share !== '—' ? <span className="cp-RateShare"> · {cell.share}</span> : null}
    </td>
  );
}
