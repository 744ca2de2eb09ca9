/**
 * A run's Compile tab: cache hits and misses, compile time per variant and phase, the phases chart,
 * max-autotune's choices and CUDA-graph skips (measuredview.tsx) and the recompiles.
 */

import * as React from 'react';

import { Chart } from './chart';
import { ITabProps } from './detailprops';
import { formatS } from './format';
import { AutotuneChoices, CudagraphSkips } from './measuredview';
import { COMPILE_TIPS, tip } from './tooltips';

export function Compile({ run, figures, services }: ITabProps): JSX.Element {
  const c = run.cache;
  return (
    <div className="cp-Compile">
      <table className="cp-Table">
        <tbody>
          <tr>
            <th title={tip(COMPILE_TIPS, 'cache')}>cache</th>
            <td>{run.summary?.cache_words || c.state}</td>
          </tr>
          {(run.summary?.cache_counts ?? []).map((count, i) => (
            <tr key={count}>
              <th title={i === 0 ? tip(COMPILE_TIPS, 'caches') : ''}>{i === 0 ? 'caches' : ''}</th>
              <td>{count}</td>
            </tr>
          ))}
          {run.variants
            .filter(v => v.compile_s !== null && v.compile_s !== undefined)
            .map(v => (
              <tr key={v.name}>
                <th title={tip(COMPILE_TIPS, 'compile')}>compile {v.name}</th>
                <td>{formatS(v.compile_s)}</td>
              </tr>
            ))}
          {Object.entries(run.compile_phases).map(([phase, seconds]) => (
            <tr key={phase}>
              <th title={tip(COMPILE_TIPS, 'phase')}>{phase}</th>
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
