/**
 * A run's Overview tab: the answer first (diagnosisview.tsx: the digest's whole diagnosis, then the
 * --sweep recommendation with its call to copy), then the digest's headline, speedup phrase and interval, verdict and payback
 * sentences, each variant's timing, the breakdown of a call (breakdownview.tsx), the memory ratio
 * and device peaks (measuredview.tsx), correctness, warnings, errors and the variants and samples
 * charts.
 */

import * as React from 'react';

import { CallBreakdown, CallVerdict } from './breakdownview';
import { Chart } from './chart';
import { DiagnosisList, RecommendationCall } from './diagnosisview';
import { ITabProps } from './detailprops';
import { MeasuredNotes } from './measuredview';
import { INPUT_TIPS, tip, VARIANT_TIPS } from './tooltips';
import { InputsSummary } from './generated/digest';
import { meaninglessSpeedup, speedupTone, verdictBadge, verdictOf } from './verdict';

export function Overview({ run, figures, services }: ITabProps): JSX.Element {
  // The digest's words (digest/summary.py): a slowdown reads "1.80× slower", as on the card.
  const s = run.summary?.speedup ?? null;
  // each variant's figures as the digest words them (VariantRow), by name; the peak only where one was measured
  const rows = new Map((run.summary?.variants ?? []).map(row => [row.name, row]));
  const peaks = run.summary?.peak_memory ?? {};
  // The digest's verdict first (verdict.ts), as the card's badge: beneath one that overrides it the speedup is
  // marked not meaningful ("1.53× slower — not meaningful: compiled results differ").
  const verdict = verdictOf(run.summary);
  const meaningless = meaninglessSpeedup(run.summary);
  return (
    <div className="cp-Overview">
      {run.summary?.headline ? (
        <div className="cp-Overview-head">
          {verdict ? (
            <span
              className={`cp-Badge cp-mod-${speedupTone(run.summary)} cp-Verdict-badge`}
              title={verdict.text}
            >
              {verdictBadge(run.summary)}
            </span>
          ) : null}
          <p className="cp-Headline">{run.summary.headline}</p>
        </div>
      ) : null}
      <DiagnosisList summary={run.summary} showLine={line => void services.revealLine(run, line)} />
      <RecommendationCall summary={run.summary} />
      {s ? (
        <p className={`cp-Speedup${meaningless ? ' cp-mod-meaningless' : ''}`}>
          <strong>{meaningless ?? s.phrase}</strong> with {s.variant}{' '}
          <span className="cp-Interval">{s.interval_text ?? ''}</span>
        </p>
      ) : run.summary?.trace ? (
        <p className="cp-Speedup cp-Trace">
          {run.summary.trace.text}
          {run.summary.trace.skipped_text ? `; ${run.summary.trace.skipped_text}` : ''}
        </p>
      ) : (
        <p className="cp-Speedup">No speedup figure: {run.status}.</p>
      )}
      <InputSequence inputs={run.summary?.inputs ?? null} />
      <CallVerdict summary={run.summary} />
      <table className="cp-Table">
        <thead>
          <tr>
            {['variant', 'median', 'p10–p90', 'n', 'compile', 'peak memory'].map(h => (
              <th key={h} title={tip(VARIANT_TIPS, h)}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {run.variants.map(v => {
            const row = rows.get(v.name);
            return (
              <tr key={v.name}>
                <td>{v.name}</td>
                <td>{v.timing ? (row?.median_time ?? '—') : v.error || v.error_note ? 'failed' : '—'}</td>
                <td>{v.timing && row ? `${row.p10_time ?? '—'}–${row.p90_time ?? '—'}` : ''}</td>
                <td>{v.timing?.n ?? ''}</td>
                <td>{row?.compile_time ?? '—'}</td>
                <td>{peaks[v.name] ?? '—'}</td>
              </tr>
            );
          })}
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
      {/* the digest's words: an error the profile stated (another rank's, an interrupt) has no message of its own */}
      {(run.summary?.errors ?? run.errors).map((e, i) => (
        <p key={i} className="cp-Error">
          {e.stage}
          {e.variant ? ` (${e.variant})` : ''}
          {e.line ? `, cell line ${e.line}` : ''}: {e.message}
        </p>
      ))}
      {/* the digest's note follows "peak memory:", as in the text view; alone it would not say what is missing */}
      {run.summary?.memory_note ? (
        <p className="cp-Note cp-MemoryNote">peak memory: {run.summary.memory_note}</p>
      ) : null}
      {/* a run read from a TORCH_TRACE timed nothing: no empty timing charts, the line above says so */}
      {run.imported_trace ? null : (
        <>
          <Chart name="variants" figure={figures?.variants} charts={services.charts} height={260} />
          <Chart name="samples" figure={figures?.samples} charts={services.charts} height={280} />
        </>
      )}
    </div>
  );
}

const REPRESENTATIVE_TIP =
  "The signature in bold: the variants' table below, the kernels and the correctness are of it (the note under " +
  'this table says which input it is); the speedup above is over the whole sequence, weighted by calls.';

/** A profile over a sequence of inputs: the digest's sentence, a row per signature, the recompiles by input. */
export function InputSequence({ inputs }: { inputs: InputsSummary | null }): JSX.Element | null {
  if (!inputs) {
    return null;
  }
  return (
    <div className="cp-Inputs">
      <p className="cp-InputsText">{inputs.text}</p>
      <table className="cp-Table">
        <thead>
          <tr>
            {['signature', 'inputs', 'eager', 'compiled', 'speedup', 'recompiles', 'compiling'].map(h => (
              <th key={h} title={tip(INPUT_TIPS, h)}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {inputs.rows.map(r => (
            <tr
              key={r.signature}
              className={r.representative ? 'cp-mod-representative' : undefined}
              title={r.representative ? REPRESENTATIVE_TIP : undefined}
            >
              <td>{r.signature}</td>
              <td>{r.inputs_text}</td>
              <td>{r.eager_time}</td>
              <td>{r.compiled_time}</td>
              <td>{r.speedup_text}</td>
              <td>{r.recompiles}</td>
              <td>{r.compile_time}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {inputs.more_signatures_text ? <p className="cp-Note">{inputs.more_signatures_text}</p> : null}
      {inputs.recompiles.length ? (
        <ul className="cp-List">
          {inputs.recompiles.map((r, i) => (
            <li key={i}>
              input {r.input} ({r.signature}) recompiled
              {r.compile_time ? `, ${r.compile_time} compiling` : ''}: {r.text}
            </li>
          ))}
        </ul>
      ) : null}
      <p className="cp-Note">
        {inputs.comparison_text}; {inputs.timing_text}
      </p>
    </div>
  );
}
