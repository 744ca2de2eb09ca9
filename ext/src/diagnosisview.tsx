/**
 * The detail's answer first, at the top of its Overview: the digest's whole diagnosis (what costs the
 * compiled cell time, largest first: each cause's title, its cost in bold, what to do, muted) and the
 * --sweep recommendation with its torch.compile call to copy.  The card shows the same causes' first
 * three (card.ts); both lay out the digest's words (digest/diagnosis.py) as text.
 */

import { Clipboard } from '@jupyterlab/apputils';
import * as React from 'react';

import { recommendationOf, SHOW_LINE_TEXT } from './diagnosis';
import { IRunDigest } from './types';

/**
 * Every cause, in the digest's order.  Given `showLine`, a cause on a cell line gets a button that shows
 * that line in the notebook (as the Graph breaks tab's do); its title already names the line, the button
 * does not name it again (SHOW_LINE_TEXT).
 */
export function DiagnosisList({
  summary,
  showLine
}: {
  summary: IRunDigest | undefined;
  showLine?: (line: number) => void;
}): JSX.Element | null {
  const causes = Array.isArray(summary?.diagnosis) ? summary.diagnosis : [];
  if (!causes.length) {
    return null;
  }
  return (
    <section className="cp-Diagnosis cp-Overview-diagnosis" aria-label="diagnosis">
      {summary?.diagnosis_heading ? (
        <h3 className="cp-Diagnosis-heading">{summary.diagnosis_heading}</h3>
      ) : null}
      <ol className="cp-Diagnosis-list">
        {causes.map((c, i) => (
          <li key={i} className="cp-Cause" data-kind={c.kind}>
            <span className="cp-Cause-title">{c.title}</span>:{' '}
            <strong className="cp-Cause-cost">{c.cost_text}</strong>
            {c.line !== null && showLine ? (
              <>
                {' '}
                <button
                  className="cp-LinkButton cp-Cause-line"
                  title="Show this line in the notebook"
                  onClick={() => showLine(c.line as number)}
                >
                  {SHOW_LINE_TEXT}
                </button>
              </>
            ) : null}
            {c.action ? <div className="cp-Cause-action">{c.action}</div> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

export function RecommendationCall({ summary }: { summary: IRunDigest | undefined }): JSX.Element | null {
  const r = recommendationOf(summary);
  const [copied, setCopied] = React.useState(false);
  if (!r) {
    return null;
  }
  return (
    <div className="cp-Recommendation cp-Overview-recommendation">
      {r.text ? <div className="cp-Recommendation-text">{r.text}</div> : null}
      <div className="cp-Recommendation-call">
        <code className="cp-Recommendation-code">{r.call}</code>
        <button
          className="jp-Button jp-mod-minimal cp-Action cp-Recommendation-copy"
          title="Copy this torch.compile call"
          onClick={() => {
            Clipboard.copyToSystem(r.call);
            setCopied(true);
            window.setTimeout(() => setCopied(false), 1500);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  );
}
