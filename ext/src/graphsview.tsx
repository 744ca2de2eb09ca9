/** A run's Graphs tab: pick a Dynamo, AOT or post-grad graph and read its code (codeview.tsx). */

import * as React from 'react';

import { CodeView } from './codeview';
import { ITabProps } from './detailprops';

const GRAPH_KIND_LABEL: Record<string, string> = {
  dynamo: 'Dynamo',
  aot_forward: 'AOT forward',
  aot_backward: 'AOT backward',
  aot_inference: 'AOT inference',
  post_grad: 'post-grad'
};

export function Graphs({ run, services }: ITabProps): JSX.Element {
  const [index, setIndex] = React.useState(0);
  if (!run.graphs.length) {
    return <p className="cp-Empty">No graphs were captured.</p>;
  }
  const graph = run.graphs[Math.min(index, run.graphs.length - 1)];
  return (
    <div className="cp-Graphs">
      <select
        className="cp-Select"
        value={index}
        onChange={e => setIndex(Number(e.target.value))}
        aria-label="graph"
      >
        {run.graphs.map((g, i) => (
          <option key={i} value={i}>
            {GRAPH_KIND_LABEL[g.kind] ?? g.kind} {g.id}
            {g.variant ? ` · ${g.variant}` : ''}
            {g.compile_id ? ` · compile ${g.compile_id}` : ''}
          </option>
        ))}
      </select>
      {graph.lines && graph.lines.length ? (
        <p className="cp-Note">cell lines {graph.lines.join(', ')}</p>
      ) : null}
      <CodeView code={graph.code} language="Python" languages={services.languages} label={graph.id} />
    </div>
  );
}
