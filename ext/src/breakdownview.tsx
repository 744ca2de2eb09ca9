/**
 * The Overview's account of one call (issue 13): the digest's verdict (why compiled is faster or
 * slower) and payback sentences, and "Where a call's time goes": a table of each variant's library,
 * generated, ATen and copy kernel time (and collectives in a distributed run: the digest's columns),
 * time outside kernels and the whole call, with the digest's
 * stacked-bar "breakdown" figure.  breakdown.ts picks the figures out; this file lays them out.
 * A run older than the breakdown shows nothing here.
 */

import * as React from 'react';

import { breakdownColumns, breakdownRows, paybackText, verdictText } from './breakdown';
import { Chart } from './chart';
import { ChartRenderer } from './charts';
import { figureHeight } from './measured';
import { BREAKDOWN_TIPS, tip } from './tooltips';
import { IPlotlyFigure, IRunSummary } from './types';

/** The verdict and payback sentences, each only when the digest has one. */
export function CallVerdict({ summary }: { summary: IRunSummary | undefined }): JSX.Element | null {
  const verdict = verdictText(summary);
  const payback = paybackText(summary);
  if (!verdict && !payback) {
    return null;
  }
  return (
    <>
      {verdict ? <p className="cp-Verdict">{verdict}</p> : null}
      {payback ? <p className="cp-Payback">{payback}</p> : null}
    </>
  );
}

/** A variant's name that may break after each "/" (inductor/<wbr>max-autotune) in a narrow panel. */
function breakable(name: string): React.ReactNode[] {
  return name.split('/').flatMap((part, i) =>
    i
      ? [
          <React.Fragment key={i}>
            /<wbr />
          </React.Fragment>,
          part
        ]
      : [part]
  );
}

/** The breakdown table and chart; nothing when the run has no breakdown. */
export function CallBreakdown(props: {
  summary: IRunSummary | undefined;
  figure: IPlotlyFigure | undefined;
  charts: ChartRenderer;
}): JSX.Element | null {
  const rows = breakdownRows(props.summary);
  const columns = breakdownColumns(props.summary); // the digest's: collectives only in a distributed run
  if (!rows.length) {
    return null;
  }
  return (
    <div className="cp-Breakdown">
      <h4 className="cp-Breakdown-title">Where a call's time goes</h4>
      <div className="cp-BreakdownScroll">
        <table className="cp-Table cp-BreakdownTable">
          <thead>
            <tr>
              <th title={tip(BREAKDOWN_TIPS, 'variant')}>variant</th>
              {columns.map(c => (
                <th key={c.key} data-part={c.key} title={tip(BREAKDOWN_TIPS, c.key)}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={`${i}:${r.variant}`} data-variant={r.variant} data-method={r.method}>
                <td className="cp-BreakdownVariant">{breakable(r.variant)}</td>
                {columns.map(c => (
                  <td key={c.key} data-part={c.key}>
                    {r.parts[c.key]}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows
        .filter(r => r.withheld)
        .map((r, i) => (
          <p key={`withheld:${i}`} className="cp-Note cp-Withheld" data-variant={r.variant}>
            {r.withheld}
          </p>
        ))}
      <Chart
        name="breakdown"
        figure={props.figure}
        charts={props.charts}
        height={figureHeight(props.figure, 220)}
      />
    </div>
  );
}
