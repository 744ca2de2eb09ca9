/**
 * A stored suite against another, in the suite's tab (issue 34, item 4): the choice of the suite to compare with,
 * and the comparison as `compile-profile suite-compare OLD NEW` words it (suites/compare.py): its headline, the
 * setups' differences, the gate, and a row per entry (status changes and regressions first, as the server orders
 * them).  This view formats no number.
 */

import * as React from 'react';

import { IComparisonRow, ISuiteComparison, ISuiteListRow } from './suitetypes';

export interface ISuiteCompareProps {
  /** the other readable suites the store holds, newest first */
  others: ISuiteListRow[];
  /** the suite compared with, or '' */
  oldId: string;
  comparison: ISuiteComparison | null;
  error: string | null;
  onChoose: (oldId: string) => void;
}

export function SuiteCompare({
  others,
  oldId,
  comparison,
  error,
  onChoose
}: ISuiteCompareProps): JSX.Element | null {
  if (!others.length) {
    return null;
  }
  return (
    <div className="cp-SuiteCompare">
      <label className="cp-SuiteCompareChoice">
        Compare with{' '}
        <select
          aria-label="compare with another suite"
          value={oldId}
          onChange={event => onChoose(event.currentTarget.value)}
        >
          <option value="">another stored suite…</option>
          {others.map(s => (
            <option key={s.id} value={s.id}>
              {s.label ? `${s.label} · ` : ''}
              {s.title} · {s.created_text} ({s.id})
            </option>
          ))}
        </select>
      </label>
      {error ? <div className="cp-Error">{error}</div> : null}
      {comparison && oldId ? <ComparisonView comparison={comparison} /> : null}
    </div>
  );
}

function ComparisonView({ comparison }: { comparison: ISuiteComparison }): JSX.Element {
  return (
    <div className="cp-SuiteComparison" data-old={comparison.old} data-new={comparison.new}>
      <p className="cp-SuiteComparisonHeadline">{comparison.headline}</p>
      {comparison.setup_text || comparison.setup_differences.length ? (
        <p className="cp-Note cp-SuiteComparisonSetup">
          {comparison.setup_text || comparison.setup_differences.join('; ')}
        </p>
      ) : null}
      <p className="cp-Note cp-SuiteComparisonGate">{comparison.gate_text}</p>
      {comparison.regressions.length ? (
        <ul className="cp-SuiteComparisonRegressions" aria-label="regressions">
          {comparison.regressions.map((text, i) => (
            <li key={i}>{text}</li>
          ))}
        </ul>
      ) : null}
      {comparison.unjudged.length ? (
        <ul className="cp-Note cp-SuiteComparisonUnjudged">
          {comparison.unjudged.map((text, i) => (
            <li key={i}>{text}</li>
          ))}
        </ul>
      ) : null}
      <div className="cp-SuiteTableWrap">
        <table className="cp-Table cp-SuiteComparisonTable">
          <thead>
            <tr>
              <th>entry</th>
              <th title="the entry's status then → now">status</th>
              <th title="the older suite's speedup">old speedup</th>
              <th title="this suite's speedup">new speedup</th>
              <th title="new speedup ÷ old, with its interval">new/old</th>
              <th title="compile time then → now, with the Inductor cache each met">compile</th>
            </tr>
          </thead>
          <tbody>
            {comparison.rows.map(row => (
              <ComparisonRowView key={row.name} row={row} />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function rowTone(row: IComparisonRow): string {
  if (row.stopped_passing || row.regressed) {
    return 'cp-mod-regressed';
  }
  return row.improved ? 'cp-mod-improved' : '';
}

function ComparisonRowView({ row }: { row: IComparisonRow }): JSX.Element {
  return (
    <tr className={`cp-SuiteComparisonRow ${rowTone(row)}`.trim()} title={row.text}>
      <th scope="row">{row.name}</th>
      <td className="cp-mod-wrap">{row.status_text}</td>
      <td className="cp-mod-wrap">{row.old_speedup_text}</td>
      <td className="cp-mod-wrap">{row.new_speedup_text}</td>
      <td className="cp-mod-wrap">{row.ratio_text}</td>
      <td className="cp-mod-wrap">{row.compile_text}</td>
    </tr>
  );
}
