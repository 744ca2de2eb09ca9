/**
 * One run's detail, the content of its main-area tab (detailwidget.tsx): a row of tabs and the
 * chosen one, each in a file of its own: Overview (overview.tsx), Compile (compiletab.tsx), Graph
 * breaks (breaksview.tsx), Graphs (graphsview.tsx), Guards (guardsview.tsx), Kernels
 * (kernelsview.tsx) and Lines (linesview.tsx).
 */

import * as React from 'react';

import { GraphBreaks } from './breaksview';
import { Compile } from './compiletab';
import { IDetailServices } from './detailprops';
import { Graphs } from './graphsview';
import { GuardsTab } from './guardsview';
import { Kernels } from './kernelsview';
import { Lines } from './linesview';
import { Overview } from './overview';
import { IPlotlyFigure, IProfileRun } from './types';

export const DETAIL_TABS = [
  'Overview',
  'Compile',
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
}): JSX.Element {
  const { run, tab } = props;
  const counts: Partial<Record<DetailTab, number>> = {
    'Graph breaks': run.graph_breaks.length,
    Graphs: run.graphs.length,
    Kernels: run.kernels.length
  };
  return (
    <div className="cp-Detail" data-run-id={run.id}>
      <div className="cp-Tabs" role="tablist">
        {DETAIL_TABS.map(name => (
          <button
            key={name}
            role="tab"
            aria-selected={name === tab}
            className={`cp-Tab${name === tab ? ' cp-mod-active' : ''}`}
            onClick={() => props.onTab(name)}
          >
            {name}
            {counts[name] !== undefined ? ` (${counts[name]})` : ''}
          </button>
        ))}
      </div>
      <div className="cp-TabBody" data-tab={tab}>
        {tab === 'Overview' && <Overview {...props} />}
        {tab === 'Compile' && <Compile {...props} />}
        {tab === 'Graph breaks' && <GraphBreaks {...props} />}
        {tab === 'Graphs' && <Graphs {...props} />}
        {tab === 'Guards' && <GuardsTab run={run} revealLine={props.services.revealLine} />}
        {tab === 'Kernels' && <Kernels {...props} />}
        {tab === 'Lines' && <Lines {...props} />}
      </div>
    </div>
  );
}
