/**
 * "Show what is measured" (issue 13 §4), laid out where each belongs: the device's peaks and the
 * memory ratio on the Overview, max-autotune's choices (each sentence, then a compact table) and the
 * CUDA-graph skip reasons on the Compile tab, each kernel's roofline sentence and the digest's
 * "roofline" figure on the Kernels tab.  measured.ts picks the digest's figures out; this file lays
 * them out.  A run older than `measured` shows nothing here.
 */

import * as React from 'react';

import { Chart } from './chart';
import { ChartRenderer } from './charts';
import {
  AUTOTUNE_COLUMNS,
  autotuneRows,
  cudagraphSkips,
  devicePeaks,
  figureHeight,
  memoryRatioText,
  rooflineTexts
} from './measured';
import { AUTOTUNE_TIPS, tip } from './tooltips';
import { IPlotlyFigure, IRunDigest } from './types';

type Summary = IRunDigest | undefined;

/** The Overview's memory ratio and device peaks sentences, each only when the digest has one. */
export function MeasuredNotes({ summary }: { summary: Summary }): JSX.Element | null {
  const ratio = memoryRatioText(summary);
  const peaks = devicePeaks(summary);
  if (!ratio && !peaks) {
    return null;
  }
  return (
    <>
      {ratio ? <p className="cp-MemoryRatio">{ratio}</p> : null}
      {peaks ? (
        <div className="cp-Peaks">
          <p className="cp-DevicePeaks">{peaks.text}</p>
          {peaks.method ? (
            <details className="cp-PeaksMethod">
              <summary>how the peaks were measured</summary>
              <p>{peaks.method}</p>
            </details>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

/** The Compile tab's max-autotune choices: each sentence, then a table of the figures. */
export function AutotuneChoices({ summary }: { summary: Summary }): JSX.Element | null {
  const rows = autotuneRows(summary);
  if (!rows.length) {
    return null;
  }
  return (
    <div className="cp-Autotune">
      <h4>Autotuning</h4>
      <ul className="cp-List cp-AutotuneTexts">
        {rows
          .filter(r => r.text)
          .map((r, i) => (
            <li key={i} className="cp-AutotuneText" data-variant={r.variant}>
              {r.text}
            </li>
          ))}
      </ul>
      <div className="cp-AutotuneScroll">
        <table className="cp-Table cp-AutotuneTable">
          <thead>
            <tr>
              {AUTOTUNE_COLUMNS.map(c => (
                <th key={c.key} data-field={c.key} title={tip(AUTOTUNE_TIPS, c.key)}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} data-variant={r.variant} title={r.variant}>
                {AUTOTUNE_COLUMNS.map(c => (
                  <td key={c.key} data-field={c.key}>
                    {c.key === 'picked' || c.key === 'best_triton' ? (
                      <code>{r.cells[c.key]}</code>
                    ) : (
                      r.cells[c.key]
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The Compile tab's reasons CUDA graphs were skipped, per variant. */
export function CudagraphSkips({ summary }: { summary: Summary }): JSX.Element | null {
  const skips = cudagraphSkips(summary);
  if (!skips.length) {
    return null;
  }
  return (
    <div className="cp-CudagraphSkips">
      <h4>CUDA graphs skipped</h4>
      <ul className="cp-List">
        {skips.map((s, i) => (
          <li key={i} className="cp-CudagraphSkip" data-variant={s.variant}>
            {s.variant ? <span className="cp-Recompile-variant">{s.variant}: </span> : null}
            {s.reasons.length === 1 ? (
              s.reasons[0]
            ) : (
              <ul className="cp-List">
                {s.reasons.map((r, j) => (
                  <li key={j}>{r}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The Kernels tab's roofline: the digest's chart when it drew one, and each kernel's sentence. */
export function Roofline(props: {
  summary: Summary;
  figure: IPlotlyFigure | undefined;
  charts: ChartRenderer;
}): JSX.Element | null {
  const texts = rooflineTexts(props.summary);
  if (!texts.length && !props.figure) {
    return null;
  }
  return (
    <div className="cp-Roofline">
      <h4>Against the roofline</h4>
      {props.figure ? (
        <Chart
          name="roofline"
          figure={props.figure}
          charts={props.charts}
          height={figureHeight(props.figure, 300)}
        />
      ) : null}
      {texts.length ? (
        <ul className="cp-List cp-RooflineTexts">
          {texts.map((t, i) => (
            <li key={i} className="cp-RooflineRow" data-kernel-id={t.kernelId} data-variant={t.variant}>
              <code className="cp-KernelName">{t.name}</code>:{' '}
              <span className="cp-RooflineText">{t.text}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
