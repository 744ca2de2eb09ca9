/**
 * A run's actions, above its detail's tabs: Copy the cell it profiled with its `%%compile_profile`
 * line (magicline.ts), Export its self-contained HTML report (the server renders it; the browser saves
 * it), Re-run its cell in the notebook it came from (navigate.ts; where it cannot, it says why), Bisect it
 * (re-run with --bisect, where the digest's bisect_offer says what that would find: a compile failure or
 * results that differ), and for a run whose compile failed, Export reproducer (a standalone script to attach
 * to a PyTorch issue).  What each
 * did shows beside them in words.
 */

import { Clipboard } from '@jupyterlab/apputils';
import * as React from 'react';

import { fetchReport, fetchReproducer } from './api';
import { IDetailServices } from './detailprops';
import { download } from './download';
import { hasMagicLine, profiledCell } from './magicline';
import { IProfileRun } from './types';

export function RunActions(props: { run: IProfileRun; services: IDetailServices }): JSX.Element {
  const { run, services } = props;
  const [note, setNote] = React.useState<{ text: string; bad: boolean } | null>(null);
  const [busy, setBusy] = React.useState(false);
  const say = (text: string, bad = false) => setNote({ text, bad });
  const copy = () => {
    Clipboard.copyToSystem(profiledCell(run));
    say(
      hasMagicLine(run)
        ? 'Copied the cell as run: its %%compile_profile line and its code.'
        : 'Copied a %%compile_profile cell built from the options the run records (those it does not record at their defaults).'
    );
  };
  // Fetch a file of the run from the server and save it, saying what became of it.
  const save = async (fetch: () => Promise<Blob>, name: string, done: string) => {
    setBusy(true);
    try {
      download(await fetch(), name);
      say(done);
    } catch (error) {
      say(`Not exported: ${(error as Error).message}`, true);
    } finally {
      setBusy(false);
    }
  };
  const report = `compile-profile-${run.id}.html`;
  const exportReport = () => save(() => fetchReport(run.id), report, `Exported the report as ${report}.`);
  const repro = `repro-${run.id}.py`;
  const exportReproducer = () =>
    save(
      () => fetchReproducer(run.id),
      repro,
      `Exported the reproducer as ${repro}: run it with python ${repro}.`
    );
  const hasReproducer = run.errors.some(e => Boolean(e.reproducer));
  const rerun = async (option = '') => {
    const result = await services.rerun(run, option);
    say(result.message, !result.ran);
  };
  const bisectOffer = run.summary?.bisect_offer ?? '';
  // A run read from a TORCH_TRACE profiled no cell: its "cell" is a script, with no %%compile_profile line to copy
  // and no notebook to re-run it in (the digest offers no bisect for it either).
  const fromCell = !run.imported_trace;
  return (
    <div className="cp-Actions" role="toolbar" aria-label="Run actions">
      {fromCell ? (
        <button
          className="jp-Button jp-mod-minimal cp-Action"
          data-action="copy"
          title="Copy the cell this run profiled, with the %%compile_profile line and options it used"
          onClick={copy}
        >
          Copy cell
        </button>
      ) : null}
      <button
        className="jp-Button jp-mod-minimal cp-Action"
        data-action="export"
        title="Download this run's report: one HTML file with its charts, that opens without JupyterLab"
        disabled={busy}
        onClick={() => void exportReport()}
      >
        Export report
      </button>
      {hasReproducer ? (
        <button
          className="jp-Button jp-mod-minimal cp-Action"
          data-action="reproducer"
          title="Download a standalone script that compiles the failing graph as Inductor was given it, with the versions it was made with: to attach to a PyTorch issue"
          disabled={busy}
          onClick={() => void exportReproducer()}
        >
          Export reproducer
        </button>
      ) : null}
      {fromCell ? (
        <button
          className="jp-Button jp-mod-minimal cp-Action"
          data-action="rerun"
          title="Run this cell again, with the same options, in the notebook it came from"
          onClick={() => void rerun()}
        >
          Re-run
        </button>
      ) : null}
      {bisectOffer ? (
        <button
          className="jp-Button jp-mod-minimal cp-Action"
          data-action="bisect"
          title={`${bisectOffer} (--bisect is added to the cell's %%compile_profile line)`}
          onClick={() => void rerun('--bisect')}
        >
          Bisect
        </button>
      ) : null}
      {note ? (
        <span className={`cp-ActionNote${note.bad ? ' cp-mod-bad' : ''}`} role="status">
          {note.text}
        </span>
      ) : null}
    </div>
  );
}
