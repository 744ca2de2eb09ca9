/**
 * A run's Lines tab: every variant the digest's time per line names, eager's column first when it
 * was measured, each cell as linecell.ts words it, and the kernels tied to no cell line.
 */

import * as React from 'react';

import { Chart } from './chart';
import { ITabProps } from './detailprops';
import { lineCell } from './linecell';
import { figureHeight } from './measured';
import { LINE_TIPS, tip } from './tooltips';
import { ILineRow } from './types';

export function Lines({ run, figures, services }: ITabProps): JSX.Element {
  const lines = run.summary?.lines;
  if (!lines) {
    return <p className="cp-Empty">This server sent no time per cell line.</p>;
  }
  // the digest's words for what no line holds (this release's server derives the digest it sends)
  const loose = lines.off_lines_text ?? [];
  return (
    <div className="cp-Lines">
      {figures?.lines ? (
        // a chart with notes under it (a withheld pass) says how tall it must be to hold them
        <Chart
          name="lines"
          figure={figures.lines}
          charts={services.charts}
          height={figureHeight(figures.lines, 240)}
        />
      ) : null}
      {lines.rows.length ? (
        <div className="cp-LineScroll">
          <table
            className="cp-Table cp-LineTable"
            style={{ minWidth: `${LINE_EM + CODE_MIN_EM + VARIANT_EM * lines.variants.length}em` }}
          >
            <colgroup>
              <col style={{ width: `${LINE_EM}em` }} />
              <col />
              {lines.variants.map(v => (
                <col key={v} style={{ width: `${VARIANT_EM}em` }} />
              ))}
            </colgroup>
            <thead>
              <tr>
                <th title={tip(LINE_TIPS, 'line')}>line</th>
                <th title={tip(LINE_TIPS, 'code')}>code</th>
                {lines.variants.map(v => (
                  <th key={v} data-variant={v} title={tip(LINE_TIPS, 'variant')}>
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
        </div>
      ) : (
        <p className="cp-Empty">No kernel or graph break was traced back to a cell line.</p>
      )}
      {loose.length > 0 && (
        <p className="cp-Note cp-Unattributed">tied to no cell line: {loose.join(', ')}</p>
      )}
      {Object.entries(lines.withheld ?? {}).map(([v, text]) => (
        <p key={`withheld:${v}`} className="cp-Note cp-Withheld" data-variant={v}>
          {text}
        </p>
      ))}
      <p className="cp-Note cp-LineRule">Time per cell line: {lines.rule}.</p>
    </div>
  );
}

// The Lines table's column widths: the line number's, a variant's (a time and what it came from over a few
// lines), and the least the code keeps; the code takes the rest of the tab.
const LINE_EM = 4;
const VARIANT_EM = 10;
const CODE_MIN_EM = 20;

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
