/** A run's Graph breaks tab: the digest's groups of breaks, each with its cell line (a click reveals it). */

import * as React from 'react';

import { ITabProps } from './detailprops';

export function GraphBreaks({ run, services }: ITabProps): JSX.Element {
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
