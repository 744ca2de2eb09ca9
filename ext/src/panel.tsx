/**
 * The "Compile Profile" sidebar panel: the run list (a click opens the run's detail in the main
 * area, detailwidget.tsx; the ranks of a distributed job sit under one job row, which opens the
 * job's view, jobwidget.tsx), the comparison of two runs, and the stored suites over collections of models (a click
 * opens the suite's tab, suitewidget.tsx).
 */

import { Dialog, InputDialog, showDialog } from '@jupyterlab/apputils';
import { ReactWidget, UseSignal } from '@jupyterlab/ui-components';
import * as React from 'react';

import * as api from './api';
import { contextRows, deltaArrow, deltaClass, kernelCountText } from './compare';
import { IMPORT_TRACE_HELP } from './importtrace';
import { jobRowKey, listKeyAction, neighbourKey, rowKeys, runRowKey, tabStopKey } from './listnav';
import { PanelModel } from './model';
import { groupJobs, jobTitle, readableRuns, runBadge, runFlag, runTitle, unreadableReason } from './runlist';
import { ISuiteListRow } from './suitetypes';
import { IComparison, IKernelCount, IRunSummary } from './types';
import { meaninglessSpeedup, speedupTone } from './verdict';

export const PANEL_ID = 'compile-profile-panel';

export class CompileProfilePanel extends ReactWidget {
  constructor(
    readonly model: PanelModel,
    private readonly _openRun: (runId: string) => void,
    private readonly _openJob: (jobId: string) => void,
    private readonly _openSuite: (suiteId: string) => void = () => undefined
  ) {
    super();
    this.id = PANEL_ID;
    this.addClass('cp-Panel');
  }

  dispose(): void {
    this.model.dispose();
    super.dispose();
  }

  protected render(): JSX.Element {
    return (
      <UseSignal signal={this.model.changed}>
        {() => (
          <PanelView
            model={this.model}
            openRun={this._openRun}
            openJob={this._openJob}
            openSuite={this._openSuite}
          />
        )}
      </UseSignal>
    );
  }
}

function PanelView(props: {
  model: PanelModel;
  openRun: (runId: string) => void;
  openJob: (jobId: string) => void;
  openSuite: (suiteId: string) => void;
}): JSX.Element {
  const { model, openRun, openJob, openSuite } = props;
  const runs = model.visibleRuns;
  return (
    <div className="cp-PanelBody">
      <div className="cp-Header">
        <h3 className="cp-Title">Compile Profile</h3>
        <div className="cp-Views" role="tablist">
          {(['runs', 'compare', 'suites'] as const).map(v => (
            <button
              key={v}
              role="tab"
              aria-selected={model.view === v}
              className={`cp-Tab${model.view === v ? ' cp-mod-active' : ''}`}
              onClick={() => model.setView(v)}
            >
              {VIEW_LABELS[v]}
            </button>
          ))}
        </div>
      </div>
      {model.error ? <div className="cp-Error">{model.error}</div> : null}
      {model.view === 'runs' ? (
        <>
          <div className="cp-Toolbar">
            <label className="cp-Check">
              <input
                type="checkbox"
                checked={model.thisNotebookOnly}
                onChange={e => model.setThisNotebookOnly(e.target.checked)}
              />{' '}
              this notebook only
            </label>
            <span className="cp-Count">
              {runs.length}
              {model.total > model.runs.length
                ? ` of newest ${model.runs.length} (${model.total} stored)`
                : ''}{' '}
              run
              {runs.length === 1 ? '' : 's'}
            </span>
            <button
              className="jp-Button jp-mod-minimal"
              title="Reload the run list"
              onClick={() => void model.refresh()}
            >
              ↻
            </button>
          </div>
          <div className="cp-ImportBar">
            <button
              className="jp-Button jp-mod-minimal cp-ImportTrace"
              title={`Import TORCH_TRACE logs of a script or a torchrun job as runs (no timings). ${IMPORT_TRACE_HELP}`}
              disabled={model.importing}
              onClick={() => void importTrace(model, openRun)}
            >
              {model.importing ? 'Importing TORCH_TRACE…' : 'Import TORCH_TRACE…'}
            </button>
          </div>
          {model.importNotice ? (
            <div
              className={
                model.importNotice.kind === 'error' ? 'cp-Error cp-ImportNotice' : 'cp-Note cp-ImportNotice'
              }
              role={model.importNotice.kind === 'error' ? 'alert' : 'status'}
            >
              {model.importNotice.text}{' '}
              <button
                className="jp-Button jp-mod-minimal cp-Dismiss"
                aria-label="dismiss"
                onClick={() => model.dismissImportNotice()}
              >
                ✕
              </button>
            </div>
          ) : null}
          <div className="cp-PanelScroll">
            <RunList model={model} runs={runs} openRun={openRun} openJob={openJob} />
          </div>
        </>
      ) : model.view === 'compare' ? (
        <div className="cp-PanelScroll">
          <Compare runs={readableRuns(model.runs)} ages={model.ages} />
        </div>
      ) : (
        <div className="cp-PanelScroll">
          <SuiteList model={model} suites={model.suites} openSuite={openSuite} />
        </div>
      )}
    </div>
  );
}

const VIEW_LABELS = { runs: 'Runs', compare: 'Compare', suites: 'Suites' } as const;

/**
 * The stored suites over collections of models, newest first, each with its pass rate and geometric-mean speedup
 * (the digest's headline, which the server caches per suite), so a collection's answer reads without opening it; a
 * click opens the suite's tab.  One that cannot be read is listed all the same, as text: its id and why (the
 * server's `unreadable`), and nothing to open.  Each has a ✕ that asks, then removes the suite and the runs its
 * entries stored (one that cannot be read too).
 */
function SuiteList(props: {
  model: PanelModel;
  suites: ISuiteListRow[];
  openSuite: (suiteId: string) => void;
}): JSX.Element {
  if (!props.suites.length) {
    return (
      <p className="cp-Note cp-SuiteEmpty">
        No suites yet: <code>compile-profile suite builtin</code> or{' '}
        <code>compile_profile.suite(&quot;builtin&quot;)</code> profiles a collection of models, each in its
        own process.
      </p>
    );
  }
  return (
    <ul className="cp-SuiteList">
      {props.suites.map(s => (
        <li key={s.id} className="cp-SuiteItem" data-suite-id={s.id}>
          {s.unreadable ? (
            <div className="cp-SuiteItemUnreadable">
              <span className="cp-SuiteItemTitle">Suite {s.id}</span>
              <span className="cp-Note cp-Unreadable">cannot be read: {s.unreadable}</span>
            </div>
          ) : (
            <button
              className="cp-SuiteItemButton"
              onClick={() => props.openSuite(s.id)}
              title={`Open suite ${s.id}`}
            >
              <span className="cp-SuiteItemTitle">
                {s.title}
                {s.label ? ` — ${s.label}` : ''}
              </span>
              {s.headline ? <span className="cp-SuiteItemHeadline">{s.headline}</span> : null}
              <span className="cp-Note">
                {s.created_text} · {s.progress_text}
              </span>
            </button>
          )}
          <button
            className="jp-Button jp-mod-minimal cp-Delete"
            title="Delete this suite and the runs its entries stored"
            aria-label={`delete suite ${s.id}`}
            onClick={() => void confirmDeleteSuite(props.model, s)}
          >
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Ask, then delete suite `s` and the runs its entries stored; resolves to whether it was deleted. */
async function confirmDeleteSuite(model: PanelModel, s: ISuiteListRow): Promise<boolean> {
  const name = s.unreadable ? `suite ${s.id}` : `"${s.title}${s.label ? ` — ${s.label}` : ''}" (${s.id})`;
  const result = await showDialog({
    title: 'Delete suite?',
    body: `Delete ${name} and the runs its entries stored${s.progress_text ? ` (${s.progress_text})` : ''} from the run store?`,
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Delete' })]
  });
  if (!result.button.accept) {
    return false;
  }
  await model.removeSuite(s.id);
  return true;
}

/** Ask for a TORCH_TRACE path on the server, import it, and open the first new run. */
async function importTrace(model: PanelModel, openRun: (runId: string) => void): Promise<void> {
  const asked = await InputDialog.getText({
    title: 'Import TORCH_TRACE',
    label: IMPORT_TRACE_HELP,
    placeholder: '/tmp/trace',
    text: model.lastTracePath,
    okLabel: 'Import'
  });
  if (!asked.button.accept) {
    return;
  }
  const runId = await model.importTrace(asked.value ?? '');
  if (runId) {
    openRun(runId);
  }
}

function RunList(props: {
  model: PanelModel;
  runs: IRunSummary[];
  openRun: (runId: string) => void;
  openJob: (jobId: string) => void;
}): JSX.Element {
  const { model, runs, openRun, openJob } = props;
  const list = React.useRef<HTMLUListElement>(null);
  const [active, setActive] = React.useState<string | null>(null);
  if (!runs.length) {
    return (
      <p className="cp-Empty">
        No runs yet. Run a cell with <code>%load_ext compile_profile</code> and <code>%%compile_profile</code>{' '}
        on its first line.
      </p>
    );
  }
  const entries = groupJobs(runs);
  const keys = rowKeys(entries);
  const current = model.currentRunId
    ? runRowKey(model.currentRunId)
    : model.currentJobId
      ? jobRowKey(model.currentJobId)
      : null;
  const stop = tabStopKey(keys, active, current);
  const byKey = new Map<string, () => void>();
  const runsByKey = new Map<string, IRunSummary>();
  for (const entry of entries) {
    if (entry.kind === 'run') {
      byKey.set(runRowKey(entry.run.id), () => openRun(entry.run.id));
      runsByKey.set(runRowKey(entry.run.id), entry.run);
    } else {
      byKey.set(jobRowKey(entry.jobId), () => openJob(entry.jobId));
      for (const { run } of entry.runs) {
        byKey.set(runRowKey(run.id), () => openRun(run.id));
        runsByKey.set(runRowKey(run.id), run);
      }
    }
  }
  const focusRow = (key: string | null) => {
    if (key === null) {
      return;
    }
    setActive(key);
    list.current?.querySelector<HTMLElement>(`[data-row-key="${CSS.escape(key)}"]`)?.focus();
  };
  // The rows as one WAI-ARIA listbox (listnav.ts): the arrow keys, Home and End move, Enter opens, Delete asks.
  const onKeyDown = (e: React.KeyboardEvent<HTMLUListElement>) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('[data-row-key]');
    const key = row?.dataset.rowKey ?? stop;
    if (row && e.target !== row) {
      return; // a button inside a row keeps its own keys
    }
    const action = listKeyAction(e.key, key ? keys.indexOf(key) : -1, keys.length);
    if (!action || !key) {
      return;
    }
    if (action.kind === 'move') {
      e.preventDefault();
      focusRow(keys[action.index]);
    } else if (action.kind === 'open') {
      e.preventDefault();
      setActive(key);
      byKey.get(key)?.();
    } else {
      const run = runsByKey.get(key);
      if (run) {
        e.preventDefault();
        const next = neighbourKey(keys, key);
        void confirmDelete(model, run).then(deleted => deleted && focusRow(next));
      }
    }
  };
  const rowProps = (key: string) => ({
    'data-row-key': key,
    role: 'option',
    tabIndex: key === stop ? 0 : -1,
    'aria-selected': key === stop,
    onFocus: () => setActive(key)
  });
  return (
    <ul className="cp-RunList" role="listbox" aria-label="runs" ref={list} onKeyDown={onKeyDown}>
      {entries.map(entry =>
        entry.kind === 'run' ? (
          <RunItem
            key={entry.run.id}
            model={model}
            run={entry.run}
            openRun={openRun}
            row={rowProps(runRowKey(entry.run.id))}
          />
        ) : (
          <li
            key={`job-${entry.jobId}`}
            role="group"
            aria-label={jobTitle(entry)}
            className={`cp-JobItem${model.currentJobId === entry.jobId ? ' cp-mod-selected' : ''}`}
            data-job-id={entry.jobId}
          >
            <div
              className="cp-JobHead"
              title={`Open job ${entry.jobId} in the main area`}
              aria-current={model.currentJobId === entry.jobId ? 'true' : undefined}
              onClick={() => openJob(entry.jobId)}
              {...rowProps(jobRowKey(entry.jobId))}
            >
              <span className="cp-JobTitle">{jobTitle(entry)}</span>
              <button
                className="jp-Button jp-mod-minimal cp-OpenJob"
                aria-label={`open job ${entry.jobId}`}
                tabIndex={-1}
                onClick={e => {
                  e.stopPropagation();
                  openJob(entry.jobId);
                }}
              >
                Open job
              </button>
            </div>
            <ul className="cp-JobRanks" role="none">
              {entry.runs.map(({ rank, run }) => (
                <RunItem
                  key={run.id}
                  model={model}
                  run={run}
                  rank={rank}
                  openRun={openRun}
                  row={rowProps(runRowKey(run.id))}
                />
              ))}
            </ul>
          </li>
        )
      )}
    </ul>
  );
}

/** Ask, then delete `run` from the store; resolves to whether it was deleted. */
async function confirmDelete(model: PanelModel, run: IRunSummary): Promise<boolean> {
  const result = await showDialog({
    title: 'Delete run?',
    body: `Delete "${runTitle(run)}" (${run.id}) from the run store?`,
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Delete' })]
  });
  if (!result.button.accept) {
    return false;
  }
  await model.remove(run.id);
  return true;
}

/**
 * One run in the list, an option of its listbox (`row`: its key, role, Tab stop and focus handler); a rank of
 * a job shows its rank before its figures.  Its ✕ is for the pointer (the Delete key does it from the list).
 */
function RunItem(props: {
  model: PanelModel;
  run: IRunSummary;
  rank?: number;
  openRun: (runId: string) => void;
  row: React.HTMLAttributes<HTMLLIElement>;
}): JSX.Element {
  const { model, run, rank, openRun } = props;
  const selected = model.currentRunId === run.id;
  const flag = runFlag(run);
  // beneath a verdict that overrides it ("results differ", "ran eagerly") the speedup stays, struck through
  const meaningless = meaninglessSpeedup(run);
  // A stored run that cannot be read is listed all the same, with its id and why (the others list as always).
  const unreadable = unreadableReason(run);
  return (
    <li
      className={`cp-RunItem${selected ? ' cp-mod-selected' : ''}${unreadable ? ' cp-mod-unreadable' : ''}`}
      data-run-id={run.id}
      title={`Open ${runTitle(run)} in the main area`}
      aria-current={selected ? 'true' : undefined}
      onClick={() => openRun(run.id)}
      {...props.row}
    >
      {rank !== undefined ? <span className="cp-Rank">rank {rank}</span> : null}
      <span
        className={`cp-Badge cp-mod-${speedupTone(run)}`}
        title={run.outcome?.text ?? run.correctness?.text ?? undefined}
      >
        {runBadge(run)}
      </span>
      {meaningless && run.speedup ? (
        <span className="cp-Badge cp-mod-meaningless cp-RunSpeedup" title={meaningless}>
          {run.speedup.text}
        </span>
      ) : null}
      {flag ? (
        <span className="cp-Badge cp-mod-slower cp-RunFlag" title={run.correctness?.text ?? flag}>
          {flag}
        </span>
      ) : null}
      <span className="cp-RunText">
        <span className="cp-RunTitle">{runTitle(run)}</span>
        {unreadable ? (
          <span className="cp-RunMeta cp-Unreadable">
            run {run.id} cannot be read: {unreadable}
          </span>
        ) : (
          <span className="cp-RunMeta">
            {run.label && run.first_line ? `${run.first_line} · ` : ''}
            {run.device_text ?? run.device.type} · {model.ages[run.id] ?? ''}
          </span>
        )}
      </span>
      <button
        className="jp-Button jp-mod-minimal cp-Delete"
        title="Delete this run from the store (or press Delete on it in the list)"
        aria-label={`delete run ${run.id}`}
        tabIndex={-1}
        onClick={e => {
          e.stopPropagation();
          void confirmDelete(model, run);
        }}
      >
        ✕
      </button>
    </li>
  );
}

/** Two runs side by side, as the digest compares them (digest/compare.py); this view only lays it out. */
function Compare({ runs, ages }: { runs: IRunSummary[]; ages: Record<string, string> }): JSX.Element {
  const [aId, setA] = React.useState<string>(runs[1]?.id ?? runs[0]?.id ?? '');
  const [bId, setB] = React.useState<string>(runs[0]?.id ?? '');
  const [cmp, setCmp] = React.useState<IComparison | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    if (!aId || !bId) {
      return;
    }
    let live = true;
    api
      .getComparison(aId, bId)
      .then(c => live && (setCmp(c), setError(null)))
      .catch(e => live && (setCmp(null), setError((e as Error).message)));
    return () => {
      live = false;
    };
  }, [aId, bId]);
  if (runs.length < 2) {
    return <p className="cp-Empty">Compare needs two runs in the store.</p>;
  }
  const option = (r: IRunSummary) => (
    <option key={r.id} value={r.id}>
      {runTitle(r)} · {ages[r.id] ?? ''} · {runBadge(r)}
      {runFlag(r) ? ` · ${runFlag(r)}` : ''}
    </option>
  );
  // A response for an earlier pair is not shown under the current selection.
  const shown = cmp && cmp.a.id === aId && cmp.b.id === bId ? cmp : null;
  return (
    <div className="cp-Compare">
      <label>
        before{' '}
        <select className="cp-Select" value={aId} onChange={e => setA(e.target.value)} aria-label="before">
          {runs.map(option)}
        </select>
      </label>
      <label>
        after{' '}
        <select className="cp-Select" value={bId} onChange={e => setB(e.target.value)} aria-label="after">
          {runs.map(option)}
        </select>
      </label>
      {error ? <div className="cp-Error">{error}</div> : null}
      {shown && (
        <>
          <table className="cp-Table cp-CompareTable" data-a={shown.a.id} data-b={shown.b.id}>
            <thead>
              <tr>
                <th />
                <th>before</th>
                <th>after</th>
                <th>change</th>
              </tr>
            </thead>
            <tbody>
              <tr className="cp-CompareRef cp-CompareIds">
                <th>run</th>
                <td>
                  <code className="cp-RunId">{shown.a.id}</code>
                </td>
                <td>
                  <code className="cp-RunId">{shown.b.id}</code>
                </td>
                <td />
              </tr>
              {contextRows(shown).map(r => (
                <tr
                  key={r.label}
                  className={`cp-CompareRef${r.differs ? ' cp-mod-differs' : ''}`}
                  data-context={r.label}
                  data-differs={r.differs ? 'yes' : undefined}
                >
                  <th>{r.label}</th>
                  <td>{r.a}</td>
                  <td>{r.b}</td>
                  <td>{r.differs === null ? '' : r.differs ? 'differs' : 'same'}</td>
                </tr>
              ))}
              {shown.deltas.map(d => (
                <tr
                  key={d.metric}
                  className="cp-Delta"
                  data-metric={d.metric}
                  data-noise={d.within_noise ? 'yes' : undefined}
                >
                  <th>{d.metric}</th>
                  <td>{d.a_text}</td>
                  <td>{d.b_text}</td>
                  {/* the arrow is drawn by CSS (data-arrow), so the cell's text is the digest's words alone */}
                  <td className={`cp-DeltaChange ${deltaClass(d)}`} data-arrow={deltaArrow(d) || undefined}>
                    {d.change_text}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="cp-Note">
            {shown.kernels_kept} kernel{shown.kernels_kept === 1 ? '' : 's'} in both (matched by name without
            Inductor&apos;s trailing counter).
          </p>
          <KernelDiff title="Kernels added" kernels={shown.kernels_added} />
          <KernelDiff title="Kernels removed" kernels={shown.kernels_removed} />
        </>
      )}
    </div>
  );
}

const KERNEL_DIFF_SHOWN = 100;

function KernelDiff({ title, kernels }: { title: string; kernels: IKernelCount[] }): JSX.Element | null {
  if (!kernels.length) {
    return null;
  }
  const shown = kernels.slice(0, KERNEL_DIFF_SHOWN);
  return (
    <>
      <h4>{title}</h4>
      <ul className="cp-List cp-KernelDiff">
        {shown.map(k => (
          <li key={k.name}>
            <code>{kernelCountText(k)}</code>
          </li>
        ))}
        {kernels.length > shown.length ? <li>… {kernels.length - shown.length} more names</li> : null}
      </ul>
    </>
  );
}
