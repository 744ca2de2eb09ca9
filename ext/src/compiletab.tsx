/**
 * A run's Compile tab: cache hits and misses, compile time per variant, each compile on the timeline (the digest's
 * rows and its chart),
 * max-autotune's choices and CUDA-graph skips (measuredview.tsx), after the recompiles in the digest's words; each
 * timeline row's compile opens it in the Compiles tab, and Export for Perfetto saves the compiles as a Chrome trace.
 */

import * as React from 'react';

import { Chart } from './chart';
import { ITabProps } from './detailprops';
import { recompileItems } from './guards';
import { AutotuneChoices, CudagraphSkips } from './measuredview';
import { PerfettoButton } from './perfetto';
import { COMPILE_TIPS, tip } from './tooltips';

export function Compile({ run, figures, services, onCompile }: ITabProps): JSX.Element {
  const c = run.cache;
  // The digest's words for each recompile (the value, its line, what changed, the fix), first: under the
  // tables and charts they went unseen; Dynamo's own reason where the digest has no words for it.
  const worded = recompileItems(run.summary);
  const timeline = run.summary?.compile_timeline;
  const several = new Set((timeline?.rows ?? []).map(r => r.variant)).size > 1;
  return (
    <div className="cp-Compile">
      <div className="cp-Compile-actions">
        <PerfettoButton run={run} />
      </div>
      {run.recompiles.length > 0 && (
        <>
          <h4>Recompiles</h4>
          <ul className="cp-List cp-CompileRecompiles">
            {run.recompiles.map((r, i) => (
              <li key={i}>
                {r.variant ? `${r.variant}: ` : ''}
                {worded[i]?.failed_guard || r.reason}
                {r.during_timing ? ' (during timed runs)' : ''}
              </li>
            ))}
          </ul>
        </>
      )}
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
          {(run.summary?.variants ?? [])
            .filter(v => v.compile_s !== null)
            .map(v => (
              <tr key={v.name}>
                <th title={tip(COMPILE_TIPS, 'compile')}>compile {v.name}</th>
                <td>{v.compile_time ?? '—'}</td>
              </tr>
            ))}
          {timeline?.text ? (
            <tr>
              <th title={tip(COMPILE_TIPS, 'timeline')}>timeline</th>
              <td>{timeline.text}</td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {timeline && timeline.rows.length > 0 && (
        <table className="cp-Table cp-CompileTimeline">
          <thead>
            <tr>
              <th title={tip(COMPILE_TIPS, 'compileId')}>compile</th>
              <th title={tip(COMPILE_TIPS, 'when')}>when</th>
              <th title={tip(COMPILE_TIPS, 'compile')}>time</th>
              <th title={tip(COMPILE_TIPS, 'largest')}>largest phases</th>
              <th title={tip(COMPILE_TIPS, 'cacheLookups')}>cache</th>
            </tr>
          </thead>
          <tbody>
            {timeline.rows.map((r, i) => (
              <tr key={i}>
                <td>
                  {several ? `${r.variant} ` : ''}
                  {onCompile && r.compile_key ? (
                    <button
                      className="jp-Button jp-mod-minimal cp-Link"
                      title="Open this compile in the Compiles tab"
                      onClick={() => onCompile(r.compile_key)}
                    >
                      {r.compile_id}
                    </button>
                  ) : (
                    r.compile_id
                  )}
                </td>
                <td>
                  {r.when}
                  {r.restart_text ? <div className="cp-Note">{r.restart_text}</div> : null}
                </td>
                <td>{r.time}</td>
                <td>{r.largest_phases}</td>
                <td>{r.cache_text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Chart
        name="compile_timeline"
        figure={figures?.compile_timeline}
        charts={services.charts}
        height={260}
      />
      <AutotuneChoices summary={run.summary} />
      <CudagraphSkips summary={run.summary} />
    </div>
  );
}
