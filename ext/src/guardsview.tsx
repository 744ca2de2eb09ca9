/**
 * The Guards tab (issue 13 §5): per Dynamo graph, the digest's words for what its guards check and a
 * list of its guards grouped by kind and value, each with the cell line the value comes from (a
 * click reveals it in the notebook, as the Lines tab does) and the checks themselves in a collapsible
 * block, a value guard on data with its warning; first each recompile in the user's words (a click
 * reveals its line) and Dynamo's reason, above the guards, which run to thousands of rows.  A list, not a table: five columns do not fit the sidebar.  guards.ts picks the
 * digest's figures out; this file lays them out.  A run older than the guards says it has none.
 *
 * A tab of its own rather than a section of Graphs: Graphs shows one graph's code at a time (AOT and
 * post-grad graphs too), while guards are read across every Dynamo graph at once, beside the
 * recompiles they caused.
 */

import * as React from 'react';

import { cellLine, guardSections, recompileItems, sectionTitle } from './guards';
import { IGraphGuards, IGuardGroup, IProfileRun, IRecompileRow } from './types';

type RevealLine = (run: IProfileRun, line: number | null) => Promise<boolean>;

/** A cell line that reveals itself in the notebook when clicked; "—" when the value is on no line. */
function LineButton(props: { run: IProfileRun; line: number | null; revealLine: RevealLine }): JSX.Element {
  const line = cellLine(props.line);
  if (line === null) {
    return <span className="cp-GuardLine cp-mod-none">—</span>;
  }
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

/** One group: its kind, the value it checks, the line that value comes from, how many guards; then the checks. */
function GuardRow(props: { row: IGuardGroup; run: IProfileRun; revealLine: RevealLine }): JSX.Element {
  const { row } = props;
  return (
    <li className="cp-GuardGroup" data-kind={row.kind}>
      <div className="cp-GuardGroup-head">
        <span className="cp-GuardKind">{row.kind}</span>
        {row.source ? <code className="cp-GuardSource">{row.source}</code> : null}
        <LineButton run={props.run} line={row.line} revealLine={props.revealLine} />
        <span className="cp-GuardCount" title="guards">
          ×{row.count}
        </span>
      </div>
      {row.codes.length ? (
        <details className="cp-GuardCodes">
          <summary>
            {row.codes.length} check{row.codes.length === 1 ? '' : 's'}
          </summary>
          <pre>{row.codes.join('\n')}</pre>
        </details>
      ) : null}
      {row.warning ? <p className="cp-GuardWarning">{row.warning}</p> : null}
    </li>
  );
}

function GuardSection(props: {
  section: IGraphGuards;
  run: IProfileRun;
  revealLine: RevealLine;
}): JSX.Element {
  const { section } = props;
  return (
    <section className="cp-GuardGraph" data-graph-id={section.graph_id} data-variant={section.variant}>
      <h4 className="cp-GuardGraph-title">{sectionTitle(section)}</h4>
      <p className="cp-GuardKinds">{section.kinds_text}</p>
      {section.groups.length ? (
        <ul className="cp-GuardGroups">
          {section.groups.map((row, i) => (
            <GuardRow
              key={`${i}:${row.kind}:${row.source}`}
              row={row}
              run={props.run}
              revealLine={props.revealLine}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** A recompile: its failed guard (a click reveals the value's line) and Dynamo's reason. */
function Recompile(props: { item: IRecompileRow; run: IProfileRun; revealLine: RevealLine }): JSX.Element {
  const { item, run } = props;
  const line = cellLine(item.line);
  return (
    <li className="cp-Recompile" data-variant={item.variant}>
      {item.variant ? <span className="cp-Recompile-variant">{item.variant}: </span> : null}
      {item.failed_guard && line !== null ? (
        <button
          className="cp-GuardLine cp-FailedGuard"
          title="Show this line in the notebook"
          onClick={() => void props.revealLine(run, line)}
        >
          {item.failed_guard}
        </button>
      ) : item.failed_guard ? (
        <span className="cp-FailedGuard">{item.failed_guard}</span>
      ) : null}
      {item.during_timing ? (
        <>
          {' '}
          <span className="cp-Badge cp-mod-slower">during timed runs</span>
        </>
      ) : null}
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
  // Keyed by run: another run's graphs start with their checks folded, not as this run's were left.
  return (
    <div className="cp-Guards" key={props.run.id}>
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
      {sections.map((s, i) => (
        <GuardSection key={`${i}:${s.graph_id}`} section={s} run={props.run} revealLine={props.revealLine} />
      ))}
    </div>
  );
}
