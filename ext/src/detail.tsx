/**
 * One run's detail, the content of its main-area tab (detailwidget.tsx): a row of tabs and the
 * chosen one, each in a file of its own: Overview (overview.tsx), Compile (compiletab.tsx), Compiles
 * (compilestab.tsx: each compile's detail and artifacts), Graph breaks (breaksview.tsx), Graphs (graphsview.tsx),
 * Guards (guardsview.tsx), Kernels (kernelsview.tsx) and Lines (linesview.tsx); above them the run's actions (actionsview.tsx: Copy,
 * Export, Re-run).  The tab row is a WAI-ARIA tablist: one tab in the Tab order, the arrow keys move.
 */

import * as React from 'react';

import { GraphBreaks } from './breaksview';
import { Compiles } from './compilestab';
import { Compile } from './compiletab';
import { IDetailServices } from './detailprops';
import { Graphs } from './graphsview';
import { GuardsTab } from './guardsview';
import { Kernels } from './kernelsview';
import { Lines } from './linesview';
import { Overview } from './overview';
import { RunActions } from './actionsview';
import { IPlotlyFigure, IProfileRun } from './types';

export const DETAIL_TABS = [
  'Overview',
  'Compile',
  'Compiles',
  'Graph breaks',
  'Graphs',
  'Guards',
  'Kernels',
  'Lines'
] as const;
export type DetailTab = (typeof DETAIL_TABS)[number];

export function isDetailTab(value: unknown): value is DetailTab {
  return DETAIL_TABS.includes(value as DetailTab);
}

export function RunDetail(props: {
  run: IProfileRun;
  figures: Record<string, IPlotlyFigure> | null;
  services: IDetailServices;
  tab: DetailTab;
  onTab: (tab: DetailTab) => void;
  compileKey?: string | null;
  onCompile?: (key: string) => void;
}): JSX.Element {
  const { run, tab } = props;
  const counts: Partial<Record<DetailTab, number>> = {
    Compiles: (run.compiles ?? []).filter(c => c.compile_id).length,
    'Graph breaks': run.graph_breaks.length,
    Graphs: run.graphs.length,
    Kernels: run.kernels.length
  };
  const tabs = React.useRef<(HTMLButtonElement | null)[]>([]);
  // The tab row by keyboard (WAI-ARIA's tabs pattern): Tab enters it at the chosen tab, the arrow keys,
  // Home and End choose another and move focus there; Enter and Space choose the focused one (a button).
  const onKeyDown = (event: React.KeyboardEvent) => {
    const at = DETAIL_TABS.indexOf(tab);
    const n = DETAIL_TABS.length;
    const next: Record<string, number> = { ArrowRight: at + 1, ArrowLeft: at - 1 + n, Home: 0, End: n - 1 };
    if (!(event.key in next)) {
      return;
    }
    event.preventDefault();
    const index = next[event.key] % n;
    props.onTab(DETAIL_TABS[index]);
    tabs.current[index]?.focus();
  };
  const idOf = (name: string) => `cp-tab-${run.id}-${name.replace(/\s+/g, '-')}`;
  return (
    <div className="cp-Detail" data-run-id={run.id}>
      <RunActions run={run} services={props.services} />
      <div className="cp-Tabs" role="tablist" aria-label="Run detail" onKeyDown={onKeyDown}>
        {DETAIL_TABS.map((name, i) => (
          <button
            key={name}
            ref={node => {
              tabs.current[i] = node;
            }}
            id={idOf(name)}
            role="tab"
            aria-selected={name === tab}
            aria-controls={`${idOf(name)}-panel`}
            tabIndex={name === tab ? 0 : -1}
            className={`cp-Tab${name === tab ? ' cp-mod-active' : ''}`}
            onClick={() => props.onTab(name)}
          >
            {name}
            {counts[name] !== undefined ? ` (${counts[name]})` : ''}
          </button>
        ))}
      </div>
      <div
        className="cp-TabBody"
        data-tab={tab}
        role="tabpanel"
        id={`${idOf(tab)}-panel`}
        aria-labelledby={idOf(tab)}
      >
        {tab === 'Overview' && <Overview {...props} />}
        {tab === 'Compile' && <Compile {...props} />}
        {tab === 'Compiles' && <Compiles {...props} />}
        {tab === 'Graph breaks' && <GraphBreaks {...props} />}
        {tab === 'Graphs' && <Graphs {...props} />}
        {tab === 'Guards' && <GuardsTab run={run} revealLine={props.services.revealLine} />}
        {tab === 'Kernels' && <Kernels {...props} />}
        {tab === 'Lines' && <Lines {...props} />}
      </div>
    </div>
  );
}
