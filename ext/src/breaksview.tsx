/**
 * A run's Graph breaks tab: the digest's groups of breaks, each with its cell line (a click reveals it).
 * Each group carries the digest's note (whose break it is and what to do: PyTorch's own by design, a library's,
 * DDP's wrapper), and the tab opens with the digest's count ("5 graph breaks, all PyTorch's own by design");
 * the panel derives neither.
 */

import * as React from 'react';

import { ITabProps } from './detailprops';

export function GraphBreaks({ run, services }: ITabProps): JSX.Element {
  const groups = run.summary?.graph_breaks ?? [];
  if (!groups.length) {
    return (
      <p className="cp-Empty">
        {run.summary?.graph_break_empty_text || 'No graph breaks: Dynamo traced the cell in whole graphs.'}
      </p>
    );
  }
  // said where some breaks are not the user's (PyTorch's own, a library's): otherwise the count is the tab's badge
  const notAllYours =
    groups.some(g => g.owner && g.owner !== 'yours') || run.summary?.ddp_wrapper_break_count;
  const countText = notAllYours ? run.summary?.graph_break_text : undefined;
  return (
    <>
      {countText ? <p className="cp-Breaks-count">{countText}</p> : null}
      <ul className="cp-Breaks">
        {groups.map((b, i) => (
          <li
            key={i}
            className={b.ddp_wrapper || b.owner === 'pytorch' ? 'cp-Break cp-mod-ddpWrapper' : 'cp-Break'}
            data-owner={b.owner ?? 'yours'}
          >
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
            {b.skipped_rest ? (
              <div className="cp-Break-note">
                Dynamo could not resume there and ran the rest of that function eagerly
              </div>
            ) : null}
            {b.note ? <div className="cp-Break-note">{b.note}</div> : null}
            {b.page ? <div className="cp-Break-note">see {b.page}</div> : null}
            <pre className="cp-Break-reason">{b.reason_full}</pre>
          </li>
        ))}
      </ul>
    </>
  );
}
