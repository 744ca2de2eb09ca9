/**
 * Provenance across stages, linked: the source lines of one output module, its post-grad graph and its output code
 * side by side (digest/provenance.py groups them: each source line with the graph and code lines that came from it).
 * Choosing a source line, or clicking a line of the graph or of the code, highlights every group that holds it in
 * all three panes and brings the first highlighted line of each into view: from a cell line to the nodes it became
 * and the kernel lines they generated, and back.  Texts are loaded as the artifacts are (artifactview.tsx) and shown
 * as plain text, line by line.
 */

import * as React from 'react';

import { useArtifact } from './artifactview';
import { IProvenanceGroup, IProvenanceView } from './types';

type Pane = 'post_grad' | 'output_code';

function groupsHolding(groups: IProvenanceGroup[], pane: Pane, line: number): number[] {
  return groups.flatMap((g, i) => ((g[pane] ?? []).includes(line) ? [i] : []));
}

function Lines(props: {
  runId: string;
  sha256: string;
  title: string;
  pane: Pane;
  marked: Set<number>;
  onLine: (line: number) => void;
}): JSX.Element {
  const { text, error } = useArtifact(props.runId, props.sha256);
  const ref = React.useRef<HTMLDivElement>(null);
  const first = Math.min(...props.marked);
  React.useEffect(() => {
    const target = ref.current?.querySelector(`[data-line="${first}"]`);
    if (target && 'scrollIntoView' in target) {
      (target as HTMLElement).scrollIntoView({ block: 'center' });
    }
  }, [first, text]);
  const lines = React.useMemo(() => (text ?? '').split('\n'), [text]);
  return (
    <div className="cp-Provenance-pane" data-pane={props.pane}>
      <div className="cp-Provenance-title">{props.title}</div>
      {error ? (
        <p className="cp-Empty">{props.sha256 ? error : 'not logged for this module'}</p>
      ) : text === null ? (
        <p className="cp-Loading">Loading…</p>
      ) : (
        <div
          className="cp-Provenance-lines"
          ref={ref}
          data-pane={props.pane}
          onClick={event => {
            const line = (event.target as HTMLElement).closest('[data-line]')?.getAttribute('data-line');
            if (line) {
              props.onLine(Number(line));
            }
          }}
        >
          {lines.map((content, i) => (
            <div
              key={i}
              data-line={i + 1}
              className={`cp-Provenance-line${props.marked.has(i + 1) ? ' cp-mod-marked' : ''}`}
            >
              <span className="cp-Provenance-number">{i + 1}</span>
              {content || ' '}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

export function ProvenanceLinked(props: { runId: string; view: IProvenanceView }): JSX.Element {
  const { view } = props;
  const groups = view.groups ?? [];
  const [active, setActive] = React.useState<number[]>(groups.length ? [0] : []);
  const marked = (pane: Pane) => new Set(active.flatMap(i => groups[i]?.[pane] ?? []));
  const pick = (pane: Pane) => (line: number) => setActive(groupsHolding(groups, pane, line));
  return (
    <div className="cp-Provenance">
      <p className="cp-Note">{view.how}</p>
      <div className="cp-Provenance-panes">
        <div className="cp-Provenance-pane cp-Provenance-source">
          <div className="cp-Provenance-title">source</div>
          <ul className="cp-Provenance-groups">
            {groups.map((g, i) => (
              <li key={i}>
                <button
                  className={`cp-Provenance-group${active.includes(i) ? ' cp-mod-marked' : ''}`}
                  aria-pressed={active.includes(i)}
                  onClick={() => setActive([i])}
                >
                  <span className="cp-Provenance-groupTitle">{g.title}</span>
                  <span className="cp-Provenance-groupText">{g.text}</span>
                </button>
              </li>
            ))}
          </ul>
          {active.length ? (
            <p className="cp-Note">{active.map(i => groups[i]?.lines_text).join('; ')}</p>
          ) : (
            <p className="cp-Note">No source line holds that line.</p>
          )}
        </div>
        <Lines
          runId={props.runId}
          sha256={view.post_grad}
          title="post-grad graph"
          pane="post_grad"
          marked={marked('post_grad')}
          onLine={pick('post_grad')}
        />
        <Lines
          runId={props.runId}
          sha256={view.output_code}
          title="output code"
          pane="output_code"
          marked={marked('output_code')}
          onLine={pick('output_code')}
        />
      </div>
    </div>
  );
}
