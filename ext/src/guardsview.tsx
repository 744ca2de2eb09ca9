/**
 * The Guards tab (issue 13 §5): per Dynamo graph, the digest's words for what its guards check and a
 * table of its guards grouped by kind and value, each with the cell line the value comes from (a
 * click reveals it in the notebook, as the Lines tab does) and the checks themselves in a collapsible
 * block; then each recompile with the guard that failed and Dynamo's reason.  guards.ts picks the
 * digest's figures out; this file lays them out.  A run older than the guards says it has none.
 *
 * A tab of its own rather than a section of Graphs: Graphs shows one graph's code at a time (AOT and
 * post-grad graphs too), while guards are read across every Dynamo graph at once, beside the
 * recompiles they caused.
 */

import * as React from 'react';

import { guardSections, IGuardRow, IGuardSection, IRecompileItem, recompileItems, sectionTitle } from './guards';
import { IProfileRun } from './types';

type RevealLine = (run: IProfileRun, line: number | null) => Promise<boolean>;

/** A cell line that reveals itself in the notebook when clicked; "—" when the value is on no line. */
function LineButton(props: { run: IProfileRun; line: number | null; revealLine: RevealLine }): JSX.Element {
  if (props.line === null) {
    return <span className="cp-GuardLine cp-mod-none">—</span>;
  }
  const line = props.line;
  return (
    <button
      className="cp-GuardLine"
      title="Show this line in the notebook"
      onClick={() => void props.revealLine(props.run, line)}
    >
      cell line {line}
    </button>
  );
}

function GuardRow(props: { row: IGuardRow; run: IProfileRun; revealLine: RevealLine }): JSX.Element {
  const { row } = props;
  return (
    <tr className="cp-GuardGroup" data-kind={row.kind}>
      <td>{row.kind}</td>
      <td>
        <code>{row.source}</code>
      </td>
      <td>
        <LineButton run={props.run} line={row.line} revealLine={props.revealLine} />
      </td>
      <td className="cp-GuardCount">{row.count}</td>
      <td>
        {row.codes.length ? (
          <details className="cp-GuardCodes">
            <summary>
              {row.codes.length} check{row.codes.length === 1 ? '' : 's'}
            </summary>
            <pre>{row.codes.join('\n')}</pre>
          </details>
        ) : null}
      </td>
    </tr>
  );
}

function GuardSection(props: { section: IGuardSection; run: IProfileRun; revealLine: RevealLine }): JSX.Element {
  const { section } = props;
  return (
    <section className="cp-GuardGraph" data-graph-id={section.graphId} data-variant={section.variant}>
      <h4 className="cp-GuardGraph-title">{sectionTitle(section)}</h4>
      <p className="cp-GuardKinds">{section.kindsText}</p>
      {section.rows.length ? (
        <div className="cp-GuardScroll">
          <table className="cp-Table cp-GuardTable">
            <thead>
              <tr>
                <th>kind</th>
                <th>value</th>
                <th>from</th>
                <th>guards</th>
                <th>checks</th>
              </tr>
            </thead>
            <tbody>
              {section.rows.map((row, i) => (
                <GuardRow key={`${i}:${row.kind}:${row.source}`} row={row} run={props.run} revealLine={props.revealLine} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function Recompile(props: { item: IRecompileItem; run: IProfileRun; revealLine: RevealLine }): JSX.Element {
  const { item } = props;
  return (
    <li className="cp-Recompile" data-variant={item.variant}>
      {item.variant ? <span className="cp-Recompile-variant">{item.variant}: </span> : null}
      {item.failedGuard ? <span className="cp-FailedGuard">{item.failedGuard}</span> : null}
      {item.line !== null ? (
        <>
          {' '}
          <LineButton run={props.run} line={item.line} revealLine={props.revealLine} />
        </>
      ) : null}
      {item.duringTiming ? <span className="cp-Badge cp-mod-slower">during timed runs</span> : null}
      {item.reason ? <pre className="cp-Recompile-reason">{item.reason}</pre> : null}
    </li>
  );
}

export function GuardsTab(props: { run: IProfileRun; revealLine: RevealLine }): JSX.Element {
  const sections = guardSections(props.run.summary);
  const recompiles = recompileItems(props.run.summary);
  if (!sections.length && !recompiles.length) {
    return <p className="cp-Empty">No guards were recorded for this run.</p>;
  }
  return (
    <div className="cp-Guards">
      {sections.map((s, i) => (
        <GuardSection key={`${i}:${s.graphId}`} section={s} run={props.run} revealLine={props.revealLine} />
      ))}
      {recompiles.length ? (
        <>
          <h4>Recompiles</h4>
          <ul className="cp-List cp-Recompiles">
            {recompiles.map((r, i) => (
              <Recompile key={i} item={r} run={props.run} revealLine={props.revealLine} />
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
