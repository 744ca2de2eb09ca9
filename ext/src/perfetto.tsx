/**
 * The Perfetto button (the Compile and Compiles tabs): downloads the run's compiles as Chrome trace JSON
 * (GET runs/<id>/perfetto, render/perfetto.py) to open in ui.perfetto.dev, and says what it holds or why it failed.
 */

import * as React from 'react';

import { fetchPerfetto } from './api';
import { download } from './download';
import { IProfileRun } from './types';

export function PerfettoButton(props: { run: IProfileRun; text?: string }): JSX.Element {
  const [note, setNote] = React.useState<{ text: string; bad: boolean } | null>(null);
  const [busy, setBusy] = React.useState(false);
  const name = `compile-profile-${props.run.id}-perfetto.json`;
  const save = async () => {
    setBusy(true);
    try {
      download(await fetchPerfetto(props.run.id), name);
      setNote({ text: `Saved ${name}: open it in ui.perfetto.dev.`, bad: false });
    } catch (error) {
      setNote({ text: `Not exported: ${(error as Error).message}`, bad: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="cp-Perfetto">
      <button
        className="jp-Button jp-mod-styled jp-mod-reject cp-Perfetto-button"
        disabled={busy}
        title={
          props.text
            ? `Chrome trace for Perfetto: ${props.text}`
            : 'The compiles as a Chrome trace for Perfetto'
        }
        onClick={() => void save()}
      >
        Export for Perfetto
      </button>
      {note ? <span className={`cp-Perfetto-note${note.bad ? ' cp-Error' : ''}`}>{note.text}</span> : null}
    </span>
  );
}
